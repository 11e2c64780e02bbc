#include "remat/partition/min_cut_partition.h"

#include <algorithm>

#include <absl/container/flat_hash_set.h>

#include "remat/ir/common_subexpressions.h"
#include "remat/ir/dead_code.h"
#include "remat/ir/graph.h"
#include "remat/ir/pass_pipeline.h"
#include "remat/partition/budget_ladder.h"
#include "remat/partition/node_info.h"
#include "remat/partition/op_classes.h"
#include "remat/partition/recompute_tags.h"
#include "remat/partition/rng_functionalization.h"

namespace remat::partition {

Expected<MinCutPartition> min_cut_partition(const GraphModule& original,
                                            const MinCutConfig& config) {
  if (!(config.memory_budget >= 0 && config.memory_budget <= 1)) {
    return error_message("activation memory budget must be in [0, 1], not " +
                         std::to_string(config.memory_budget));
  }
  if (Status shape = check_joint_shape(original); !shape) return shape.errors();
  // The cut weighs values by their sizes: inputs without metadata (PyTorch 1.13 printed no type
  // annotations) leave nothing to weigh.
  for (const Node* p : original.graph().placeholders()) {
    if (!p->meta.tensor() && !p->meta.sym_value() && !p->meta.tensor_tuple()) {
      return error_message(
          "min-cut partition: input " + p->name() +
          " has no tensor metadata, so the sizes the cut weighs are unknown (PyTorch 1.13's "
          "readable text has no type annotations: partition its fxgraph-json, or use --strategy "
          "default)");
    }
  }
  StageTimer timer;
  GraphModule joint = original.clone();
  timer.lap("copy the joint graph");
  std::vector<std::pair<std::string, std::string>> merged;
  std::vector<std::pair<std::string, std::string>> reasons;
  std::vector<std::string> made_must_save;
  PassPipeline passes(config.passes);
  passes.add("dead code", [](GraphModule& m) { return eliminate_dead_code(m.graph()) > 0; });
  if (config.cse) {
    passes.add("common subexpressions", [&](GraphModule& m) {
      return eliminate_common_subexpressions(
                 m.graph(), [](const Node& n) { return is_random(n); }, &merged) > 0;
    });
  }
  passes.add("recompute tag clean-up", [&](GraphModule& m) {
    if (!has_recomputable_ops(m.graph())) return false;
    for (Node* n : cleanup_recompute_tags(m.graph(), /*is_default_partition=*/false)) {
      reasons.emplace_back(n->name(),
                           "boundary between checkpoint regions (tag clean-up made it MUST_SAVE)");
      made_must_save.push_back(n->name());
    }
    return !made_must_save.empty();
  });
  REMAT_TRY(passes.run(joint, timer));
  std::vector<std::string> notes;
  if (!merged.empty())
    notes.push_back("common-subexpression elimination merged " + std::to_string(merged.size()) +
                    " nodes");
  NodeInfo info = classify_nodes(joint);
  timer.lap("node classification");
  auto budget = cut_within_budget(joint, info, config);
  REMAT_TRY(budget);
  CutSolution& chosen = budget->cut;
  notes.insert(notes.end(), budget->notes.begin(), budget->notes.end());
  std::vector<const Node*>& saved = chosen.saved;
  std::vector<const Node*>& saved_sym = chosen.saved_sym;
  std::sort(saved.begin(), saved.end(),
            [](const Node* a, const Node* b) { return a->is_before(b); });
  timer.lap("flow network and min-cut");
  JointOrigins origins;
  auto graphs = extract_forward_backward(joint, saved, saved_sym, &origins);
  timer.lap("forward and backward extraction");
  REMAT_TRY(graphs);
  absl::flat_hash_set<std::string> explained(made_must_save.begin(), made_must_save.end());
  for (const Node* n : saved) {
    if (explained.contains(n->name())) continue;
    std::string why = n->meta.recompute == CheckpointPolicy::MustSave ? "marked MUST_SAVE"
                      : chosen.banned_nodes.contains(n)
                          ? "cheapest cut: recomputing it is banned"
                          : "cheapest cut: saving it costs less than recomputing what needs it";
    if (n->op() == OpKind::Placeholder) why = "a primal the backward reads";
    reasons.emplace_back(n->name(), why);
  }
  std::vector<std::string> rng = functionalize_recomputed_rng(*graphs);
  for (const std::string& n : rng)
    notes.push_back("random op " + n +
                    " is recomputed with the forward's RNG state (run_and_save_rng_state / "
                    "run_with_rng_state)");
  MinCutPartition result;
  result.report = describe_partition(joint, *graphs, origins, "min-cut", reasons);
  result.report.set_stage(budget->stage);
  result.report.cut_value = chosen.cut_value;
  result.report.banned = chosen.banned;
  result.report.notes = std::move(notes);
  result.report.tags_made_must_save = std::move(made_must_save);
  result.graphs = std::move(*graphs);
  result.network = std::move(chosen.network);
  result.merged = std::move(merged);
  result.rng_replayed = std::move(rng);
  timer.lap("report");
  result.stages = timer.take();
  return result;
}

}  // namespace remat::partition
