#include "remat/partition/budget_ladder.h"

#include <algorithm>

#include "remat/ops/op_registry.h"
#include "remat/partition/knapsack.h"
#include "remat/partition/knapsack_evaluator.h"
#include "remat/support/saturating_math.h"

namespace remat::partition {
namespace {

int64_t total_bytes(const std::vector<const Node*>& nodes) {
  int64_t total = 0;
  for (const Node* n : nodes) total = sat_add(total, value_bytes(*n));
  return total;
}

/// One rung of the ladder: the heuristics it turns off (on top of the rungs before it).
struct Relaxation {
  PartitionStage stage;
  void (*relax)(MinCutConfig&);
  const char* note;
};

constexpr Relaxation kRelaxations[] = {
    {PartitionStage::RelaxedBans,
     [](MinCutConfig& c) {
       c.ban_recompute_used_far_apart = c.ban_recompute_long_fusible_chains =
           c.ban_recompute_materialized_backward = false;
     },
     "the ban heuristics for far-apart uses, long fusible chains and materialized backward values "
     "are off"},
    {PartitionStage::Aggressive, [](MinCutConfig& c) { c.ban_recompute_not_in_allowlist = false; },
     "aggressive recomputation (allowlist off)"},
};

std::string budget_text(double budget) {
  return "memory budget " + std::to_string(budget);
}

// Budget 0: only the primals, except what is never assumed safe to run twice (1.13's in-place
// `bernoulli_` draws new dropout masks) that the backward needs.
BudgetChoice inputs_only(const GraphModule& joint, const NodeInfo& info,
                         const MinCutConfig& config) {
  BudgetChoice choice;
  choice.cut.saved = info.inputs;
  choice.stage = PartitionStage::InputsOnly;
  choice.notes.push_back(
      "memory budget 0: only the primals are saved; everything else is recomputed, MUST_SAVE "
      "values included (as PyTorch does)");
  for (const Node* n : joint.graph().nodes()) {
    int64_t dist = info.dist_from_bw[n];
    if (!recompute_never_assumed_safe(*n, config.ban_recompute_unknown_ops) || dist == 0 ||
        dist >= kFarFromBackward)
      continue;
    choice.cut.saved.push_back(n);
    choice.notes.push_back(
        "memory budget 0: " + n->name() +
        " is saved all the same: " + std::string(n->target().view()) +
        " is outside remat's op registry, so recomputing it is never assumed safe");
  }
  return choice;
}

// The knapsack over the banned values of the most relaxed cut: which may be recomputed after all.
Expected<BudgetChoice> knapsack_over_bans(const GraphModule& joint, const NodeInfo& info,
                                          const MinCutConfig& relaxed,
                                          const CutSolution& most_relaxed, double lo, double hi) {
  const Graph& g = joint.graph();
  double budget = relaxed.memory_budget;
  std::vector<const Node*> candidates, must_save;
  for (const Node* n : g.nodes()) {
    // Inputs share storage with themselves: saving them costs nothing extra
    // (docs/spec/partitioning.md §7.2, step 6).
    if (!most_relaxed.banned_nodes.contains(n) || n->op() == OpKind::Placeholder ||
        info.dist_from_bw[n] >= kFarFromBackward)
      continue;
    bool keep = n->meta.recompute == CheckpointPolicy::MustSave ||
                recompute_never_assumed_safe(*n, relaxed.ban_recompute_unknown_ops);
    (keep ? must_save : candidates).push_back(n);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Node* a, const Node* b) { return value_bytes(*a) > value_bytes(*b); });
  BudgetChoice choice;
  if (candidates.empty()) {
    // No cut describes this partition: its bans, cut value and network are not the earlier
    // rungs' (the report says what produced the saved set).
    choice.cut.saved = info.inputs;
    choice.cut.saved.insert(choice.cut.saved.end(), must_save.begin(), must_save.end());
    choice.stage = PartitionStage::InputsAndMustSave;
    choice.notes.push_back(
        budget_text(budget) + ": no banned value is left for the knapsack; only the inputs and " +
        std::to_string(must_save.size()) +
        " values that cannot be recomputed (MUST_SAVE, or outside remat's op registry) are saved");
    return choice;
  }
  std::vector<double> memory, runtime;
  for (const Node* n : candidates) {
    // In PyTorch's arithmetic (gigabytes first), so that quantised and MILP weights are its.
    memory.push_back((static_cast<double>(value_bytes(*n)) / 1e9) / (hi / 1e9 - lo / 1e9));
    runtime.push_back(static_cast<double>(std::max<int64_t>(flop_counter_flops(*n), 1)));
  }
  double capacity = budget;
  if (relaxed.knapsack == KnapsackSolver::Dynamic) {
    KnapsackEvaluator evaluator(knapsack_items(g, candidates, memory, runtime));
    capacity = evaluator.knee_point_budget(dp_knapsack, budget, 0.001, 100);
    choice.notes.push_back(
        "dynamic memory budget: the knee of the saved-memory / recompute-runtime curve is at " +
        std::to_string(capacity));
  }
  KnapsackResult k =
      relaxed.knapsack_solver ? relaxed.knapsack_solver(memory, runtime, capacity)
      : relaxed.knapsack == KnapsackSolver::Greedy ? greedy_knapsack(memory, runtime, capacity)
      : relaxed.knapsack == KnapsackSolver::Exact  ? exact_knapsack(memory, runtime, capacity)
                                                   : dp_knapsack(memory, runtime, capacity);
  NodeSet dont_ban(g);
  for (int i : k.recompute) dont_ban.insert(candidates[i]);
  auto cut = solve_cut(joint, info, relaxed, dont_ban);
  REMAT_TRY(cut);
  choice.cut = std::move(*cut);
  choice.stage = PartitionStage::Knapsack;
  choice.notes.push_back(budget_text(budget) + ": the knapsack lets " +
                         std::to_string(k.recompute.size()) + " of " +
                         std::to_string(candidates.size()) + " banned values be recomputed");
  return choice;
}

}  // namespace

std::optional<KnapsackSolver> parse_knapsack_solver(std::string_view name) {
  if (name == "dp") return KnapsackSolver::Dp;
  if (name == "greedy") return KnapsackSolver::Greedy;
  if (name == "exact" || name == "ilp") return KnapsackSolver::Exact;
  if (name == "dynamic" || name == "dynamic_memory_budget_dp") return KnapsackSolver::Dynamic;
  return std::nullopt;
}

Expected<BudgetChoice> cut_within_budget(const GraphModule& joint, const NodeInfo& info,
                                         const MinCutConfig& config) {
  double budget = config.memory_budget;
  if (budget == 0) return inputs_only(joint, info, config);
  auto plain = solve_cut(joint, info, config, NodeSet());
  REMAT_TRY(plain);
  double lo = static_cast<double>(total_bytes(info.inputs)),
         hi = static_cast<double>(total_bytes(plain->saved));
  BudgetChoice choice;
  choice.cut = std::move(*plain);
  if (budget >= 1 || hi <= lo) return choice;
  auto ratio = [&](const CutSolution& s) {
    return (static_cast<double>(total_bytes(s.saved)) - lo) / (hi - lo);
  };
  MinCutConfig relaxed = config;
  for (const Relaxation& rung : kRelaxations) {
    rung.relax(relaxed);
    auto cut = solve_cut(joint, info, relaxed, NodeSet());
    REMAT_TRY(cut);
    choice.cut = std::move(*cut);  // the knapsack starts from the last rung's bans
    if (ratio(choice.cut) < budget) {
      choice.stage = rung.stage;
      choice.notes.push_back(budget_text(budget) + ": " + rung.note);
      return choice;
    }
  }
  return knapsack_over_bans(joint, info, relaxed, choice.cut, lo, hi);
}

}  // namespace remat::partition
