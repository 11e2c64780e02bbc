// The optimal partition: the saved set with the least recompute cost whose activation memory fits
// a budget, over every forward value (save it, or recompute it from what is saved), as an integer
// program (docs/partitioner.md, "The optimum").
#pragma once

#include <cstdint>
#include <optional>

#include "remat/partition/milp.h"
#include "remat/partition/min_cut_partition.h"

namespace remat::partition {

struct OptimalOptions {
  /// Activation memory at most this; none: MinCutConfig::memory_budget as PyTorch reads it, the
  /// fraction of the way from the activation memory of its budget-0 partition to the plain
  /// min-cut's.
  std::optional<int64_t> budget_bytes;
  /// The other question: the least activation memory whose recompute is at most this many
  /// FLOPs (the budget still caps the memory); ties go to less recompute.
  std::optional<int64_t> recompute_flops_at_most;
  /// Decide only inside checkpoint regions: every op outside them keeps the plain min-cut's
  /// choice (saved, recomputed or neither), as PyTorch's min-cut decides those under any
  /// selective-checkpointing policy; the optimum a policy can reproduce (remat policy).
  bool within_regions = false;
  /// Offload as a third choice: a saved value may wait in host memory instead of the device's
  /// (outside the budget) at the cost of moving it out and back, 2 x bytes / offload_bandwidth
  /// seconds, weighed against recompute's FLOPs / flops_per_second. Values PyTorch's activation
  /// offloading cannot move stay on the device: views, getitems, inputs, forward outputs.
  std::optional<double> offload_bandwidth;  ///< bytes per second, host <-> device
  double flops_per_second = 0;              ///< the device's compute rate (with offload_bandwidth)
  double time_limit_seconds = 60;
  double relative_gap = 0;
  /// Write the program here (free MPS) before solving, for other solvers and for reading.
  std::string dump_mps;
};

/// How the solver ended, for the report and --pareto.
struct OptimalOutcome {
  int64_t budget_bytes = 0;
  MilpStatus status = MilpStatus::Optimal;
  double seconds = 0;
  double gap = 0;
  int64_t nodes = 0;  ///< branch-and-bound nodes the solver explored
  int columns = 0, rows = 0;
};

struct OptimalPartition {
  MinCutPartition partition;
  OptimalOutcome outcome;
};

/// The partition with the least recomputed FLOPs (ties: the least activation memory) within the
/// budget. Legal choices are the min-cut's hard rules: primals, ops outside remat's registry and
/// MUST_SAVE values are never recomputed (random ops are, replaying the forward's RNG state);
/// MUST_RECOMPUTE values, tuples and what depends on a tangent are never saved. The min-cut's own
/// choice, when it fits, is the solver's start, so the answer is never worse than it even when the
/// time limit stops the search. An error when nothing fits the budget.
Expected<OptimalPartition> optimal_partition(const GraphModule& joint, const MinCutConfig& config,
                                             const OptimalOptions& options);

}  // namespace remat::partition
