// Computes a partition's charts (chart_data.h): two more partitions for the memory curves, the
// memory-budget sweep, the region map.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "remat/partition/partition_joint.h"
#include "remat/records/memory_curve.h"

namespace remat::partition {

struct ChartOptions {
  size_t budget_steps = 10;   ///< the sweep runs budget 0, 1/steps, ..., 1 (0: no sweep)
  size_t max_samples = 1000;  ///< per memory curve
  size_t largest_alive = 3;   ///< values named at each sample
  /// Called before each partition the charts run ("default partition", "budget 0.30", ...; the
  /// sweep point of the partition charted is not run again).
  std::function<void(std::string_view)> progress;
  /// Also the optimum at each sweep point's activation memory (PartitionCharts::optimum), each
  /// solve within this many seconds; 0: not computed.
  double optimum_time_limit = 0;
  double optimum_relative_gap = 0;  ///< each solve stops within this share of its optimum
};

/// The charts of `chosen`, a partition of `joint` by `strategy` with `config` (the sweep varies
/// the config's memory budget). Fails only when the joint cannot be partitioned at all.
Expected<PartitionCharts> chart_partition(const GraphModule& joint, const Partition& chosen,
                                          Strategy strategy, const MinCutConfig& config,
                                          const ChartOptions& options = {});

/// The index of the sweep point farthest below the chord from the first point to the last, both
/// axes (activation memory, recompute FLOPs) scaled to [0, 1]; nullopt with fewer than three
/// points or none below.
std::optional<size_t> budget_knee(const std::vector<BudgetPoint>& points);

}  // namespace remat::partition
