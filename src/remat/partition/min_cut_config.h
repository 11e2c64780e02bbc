// The min-cut partitioner's switches (docs/spec/partitioning.md §9), with PyTorch's defaults.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "remat/partition/knapsack.h"
#include "remat/partition/min_cut.h"
#include "remat/passes/pass_pipeline.h"

namespace remat::partition {

/// Dynamic: the DP at the knee budget between 0.001 and the requested one (KnapsackEvaluator),
/// PyTorch's dynamic_memory_budget_dp.
enum class KnapsackSolver { Dp, Greedy, Exact, Dynamic };
/// By remat's names (`dp`, `greedy`, `exact`, `dynamic`) or torch._functorch.config's
/// `activation_memory_budget_solver` names (`ilp` is exact, `dynamic_memory_budget_dp`
/// dynamic); nullopt for any other.
std::optional<KnapsackSolver> parse_knapsack_solver(std::string_view name);

/// The partitioner's switches, with PyTorch's defaults (docs/spec/partitioning.md §9).
struct MinCutConfig {
  /// activation_memory_budget in [0, 1]: 1 = the plain min-cut, 0 = save only the primals.
  double memory_budget = 1.0;
  KnapsackSolver knapsack = KnapsackSolver::Dp;
  /// When set, solves the budget's knapsack instead of `knapsack` (the Python package hands in
  /// SciPy's MILP for PyTorch's "ilp" solver, whose choice among equal optima is HiGHS's).
  std::function<KnapsackResult(const std::vector<double>& memory,
                               const std::vector<double>& runtime, double capacity)>
      knapsack_solver;
  bool cse = true;
  bool ban_recompute_used_far_apart = true;
  bool ban_recompute_long_fusible_chains = true;
  bool ban_recompute_materialized_backward = true;
  bool ban_recompute_not_in_allowlist = true;
  bool ban_recompute_reductions = true;
  /// Where the allowlist is off (a memory budget, aggressive recomputation), PyTorch bans only
  /// its random and compute-intensive ops; this also bans ops outside remat's registry and the
  /// registry's random ops (remat's caution, off by default so that remat decides as PyTorch).
  bool ban_recompute_unknown_ops = false;
  bool recompute_views = false;
  bool treat_parameters_as_free_to_save = true;
  MaxFlowAlgorithm algorithm = MaxFlowAlgorithm::PushRelabel;
  /// For the graph passes before the cut (dead code, CSE, tag clean-up): verify() after each
  /// (tests), dumps of the graphs they leave.
  passes::PassOptions passes;
};

}  // namespace remat::partition
