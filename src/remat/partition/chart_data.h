// The numbers behind the report's pictures of a partition: memory over the step for it, for
// "save everything" and for the default partition; the memory-budget sweep (saved bytes against
// recomputed FLOPs, budget 0..1) with its knee; where the checkpoint regions, saved values and
// recomputations sit in the joint graph's node order. They travel in the partition record
// (PartitionReport::charts), so the report draws them from the log alone; partition_charts.h
// computes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace remat::partition {

/// One point of a memory curve: a step of the schedule (a bucket's busiest, when the curve is
/// sampled) and what is alive then.
struct TimelineSample {
  size_t step = 0;
  int64_t live = 0;
  std::string node;                                      ///< empty: the graph's inputs
  int64_t bytes = 0;                                     ///< the node's own value
  size_t alive = 0;                                      ///< values alive
  std::vector<std::pair<std::string, int64_t>> largest;  ///< the largest of them
};

struct TimelineCurve {
  std::string label;  ///< "this partition (min-cut)", "save everything", "default partition"
  size_t steps = 0, forward_steps = 0;
  int64_t peak_bytes = 0;
  size_t peak_step = 0;
  std::string peak_node;
  std::vector<TimelineSample> samples;  ///< at most ChartOptions::max_samples, the peak included
};

struct BudgetPoint {
  double budget = 0;
  int64_t saved_bytes = 0;
  int64_t recompute_flops = 0;
  size_t saved_values = 0;
  std::string stage;  ///< which step chose the saved set (stage_name)
};

/// A run of joint nodes, by their index in the joint's node order, with the names at its ends.
struct NodeSpan {
  size_t first = 0, last = 0;
  std::string first_name, last_name;
};
struct RegionSpan {
  int64_t id = 0;  ///< ac_graph_id
  NodeSpan span;
};
struct RegionMap {
  size_t nodes = 0;                                   ///< the joint's
  std::vector<RegionSpan> regions;                    ///< runs of nodes of one checkpoint region
  std::vector<std::pair<size_t, std::string>> saved;  ///< each saved value's joint index
  std::vector<NodeSpan> recomputed;  ///< runs of joint nodes the backward computes again
};

struct PartitionCharts {
  std::vector<TimelineCurve> memory;  ///< the partition's own curve first
  std::vector<BudgetPoint> budget;    ///< the min-cut's sweep, by budget
  std::optional<size_t> chosen;       ///< the sweep point of this partition, if it is one
  std::optional<size_t> knee;         ///< the sweep point farthest below its chord
  RegionMap regions;
  std::vector<std::string> notes;  ///< curves that could not be drawn, and why
};

}  // namespace remat::partition
