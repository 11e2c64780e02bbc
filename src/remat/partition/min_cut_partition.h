// PyTorch's min_cut_rematerialization_partition (aot-partition spec §6, current main): decide
// what the forward saves by a minimum cut of a flow network built from the joint graph.
#pragma once

#include <string>
#include <vector>

#include "remat/partition/extract.h"
#include "remat/partition/min_cut.h"
#include "remat/partition/partition_report.h"
#include "remat/support/stage_timer.h"

namespace remat::partition {

/// Dynamic: the DP at the knee budget between 0.001 and the requested one (KnapsackEvaluator),
/// PyTorch's dynamic_memory_budget_dp.
enum class KnapsackSolver { Dp, Greedy, Exact, Dynamic };

/// The partitioner's switches, with PyTorch's defaults (spec §9).
struct MinCutConfig {
  /// activation_memory_budget in [0, 1]: 1 = the plain min-cut, 0 = save only the primals.
  double memory_budget = 1.0;
  KnapsackSolver knapsack = KnapsackSolver::Dp;
  bool cse = true;
  bool ban_recompute_used_far_apart = true;
  bool ban_recompute_long_fusible_chains = true;
  bool ban_recompute_materialized_backward = true;
  bool ban_recompute_not_in_allowlist = true;
  bool ban_recompute_reductions = true;
  bool recompute_views = false;
  bool treat_parameters_as_free_to_save = true;
  MaxFlowAlgorithm algorithm = MaxFlowAlgorithm::PushRelabel;
};

struct MinCutPartition {
  ForwardBackward graphs;
  PartitionReport report;
  FlowGraph network;  ///< the network solved (for --dump-flow)
  std::vector<StageTime> stages;  ///< wall time per pass, for progress output and metrics
  /// Joint nodes CSE removed, each with the node that replaced it: the graphs name only the
  /// latter (a caller cutting modules out of its own copy of the joint applies the same merges).
  std::vector<std::pair<std::string, std::string>> merged;
  /// Random ops the backward recomputes with the forward's RNG state (rng functionalization).
  std::vector<std::string> rng_replayed;
};

/// Partitions `joint`. An unbounded cut (a value that can be neither saved nor recomputed) is an
/// error naming the nodes on the all-infinite path and why each edge is infinite.
Expected<MinCutPartition> min_cut_partition(const GraphModule& joint, const MinCutConfig& config = {});

/// Merges nodes with the same target and arguments (spec §6.1), keeping the first; random ops,
/// placeholders and `empty` are never merged. Returns how many nodes it removed; `merged`, when
/// given, receives each removed node's name with the name of the node that replaced it.
size_t eliminate_common_subexpressions(Graph& graph, std::vector<std::pair<std::string, std::string>>* merged = nullptr);

}  // namespace remat::partition
