// The numbers behind the report's pictures of a partition, and the graph-free steps that make
// them: memory over the step (a curve with its peak, sampled to at most a thousand points), the
// memory-budget sweep with its knee, and where checkpoint regions, saved values and recomputations
// sit in the joint graph's node order. partition/ fills them from the IR, report/ from the graph
// text PyTorch logged: both through memory_curve() and RegionMapBuilder, so both draw alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace remat::records {

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
  std::vector<TimelineSample> samples;  ///< at most a thousand (memory_curve), the peak included
};

struct BudgetPoint {
  double budget = 0;
  int64_t saved_bytes = 0;
  /// Of the saved bytes, what is activation memory (storage beyond the inputs); absent in
  /// records written before remat counted it.
  std::optional<int64_t> activation_bytes;
  int64_t recompute_flops = 0;
  size_t saved_values = 0;
  std::string stage;  ///< which step chose the saved set
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
  size_t nodes = 0;                 ///< the joint's, its output node included
  std::vector<RegionSpan> regions;  ///< runs of nodes of one checkpoint region
  /// Each saved activation's joint index (not the inputs the backward reads anyway).
  std::vector<std::pair<size_t, std::string>> saved;
  std::vector<NodeSpan> recomputed;  ///< runs of joint nodes the backward computes again
};

struct PartitionCharts {
  std::vector<TimelineCurve> memory;  ///< the partition's own curve first
  std::vector<BudgetPoint> budget;    ///< the min-cut's sweep, by budget
  /// The yardstick: the optimum at each sweep point's activation memory (empty unless asked).
  std::vector<BudgetPoint> optimum;
  std::optional<size_t> chosen;    ///< the sweep point of this partition, if it is one
  std::optional<size_t> knee;      ///< the sweep point farthest below its chord
  RegionMap regions;               ///< nodes == 0: none
  std::vector<std::string> notes;  ///< curves that could not be drawn, and why
};

/// One step of a schedule, the forward's then the backward's: the node that runs (empty: a
/// graph's inputs, live from its start), its own value's bytes and the bytes live while it runs.
struct CurveStep {
  std::string_view node;
  int64_t bytes = 0;
  int64_t live = 0;
};

inline constexpr size_t kMaxCurveSamples = 1000;

/// The curve of `steps`: its peak (the first of equal steps) and, when there are more than
/// `max_samples` steps, each bucket's busiest step (the first of equals, so the peak is one).
TimelineCurve memory_curve(std::string label, const std::vector<CurveStep>& steps,
                           size_t forward_steps, size_t max_samples = kMaxCurveSamples);

/// Builds a RegionMap from the joint graph's nodes in order (its output node last).
class RegionMapBuilder {
 public:
  void add(std::string_view node, std::optional<int64_t> region, bool saved, bool recomputed);
  [[nodiscard]] RegionMap finish() && { return std::move(map_); }

 private:
  RegionMap map_;
};

}  // namespace remat::records
