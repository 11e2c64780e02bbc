#include "remat/partition/min_cut_partition.h"

#include <algorithm>

#include <absl/container/flat_hash_set.h>

#include "remat/ir/graph.h"
#include "remat/partition/budget_ladder.h"
#include "remat/partition/op_classes.h"
#include "remat/passes/pass_pipeline.h"
#include "remat/passes/rng_functionalization.h"

namespace remat::partition {

Expected<PreparedJoint> prepare_joint(const GraphModule& original, const MinCutConfig& config,
                                      StageTimer& timer) {
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
  PreparedJoint p;
  p.joint = original.clone();
  timer.lap("copy the joint graph");
  passes::PassPipeline pipeline(config.passes);
  pipeline.add("dce");
  if (config.cse) pipeline.add("cse");
  pipeline.add("tag-cleanup");
  auto runs = pipeline.run(p.joint, timer);
  REMAT_TRY(runs);
  if (const passes::PassResult* cse = passes::result_of(*runs, "cse")) {
    for (const passes::PassRemark& r : cse->remarks) p.merged.emplace_back(r.node, r.into);
  }
  for (const passes::PassRemark& r : passes::result_of(*runs, "tag-cleanup")->remarks) {
    p.reasons.emplace_back(r.node, r.message);
    p.made_must_save.push_back(r.node);
  }
  if (!p.merged.empty())
    p.notes.push_back("common-subexpression elimination merged " + std::to_string(p.merged.size()) +
                      " nodes");
  p.info = classify_nodes(p.joint);
  timer.lap("node classification");
  return p;
}

Expected<MinCutPartition> partition_saving(const PreparedJoint& prepared,
                                           std::vector<const Node*> saved,
                                           std::vector<const Node*> saved_sym, std::string strategy,
                                           const std::function<std::string(const Node&)>& why_saved,
                                           StageTimer& timer) {
  auto in_graph_order = [](const Node* a, const Node* b) { return a->is_before(b); };
  std::sort(saved.begin(), saved.end(), in_graph_order);
  std::sort(saved_sym.begin(), saved_sym.end(), in_graph_order);
  JointOrigins origins;
  auto graphs = extract_forward_backward(prepared.joint, saved, saved_sym, &origins);
  timer.lap("forward and backward extraction");
  REMAT_TRY(graphs);
  absl::flat_hash_set<std::string> explained(prepared.made_must_save.begin(),
                                             prepared.made_must_save.end());
  std::vector<std::pair<std::string, std::string>> reasons = prepared.reasons;
  for (const Node* n : saved) {
    if (explained.contains(n->name())) continue;
    reasons.emplace_back(
        n->name(), n->op() == OpKind::Placeholder ? "a primal the backward reads" : why_saved(*n));
  }
  std::vector<std::string> rng = passes::functionalize_recomputed_rng(*graphs);
  std::vector<std::string> notes = prepared.notes;
  for (const std::string& n : rng)
    notes.push_back("random op " + n +
                    " is recomputed with the forward's RNG state (run_and_save_rng_state / "
                    "run_with_rng_state)");
  MinCutPartition result;
  result.report =
      describe_partition(prepared.joint, *graphs, origins, std::move(strategy), reasons);
  result.report.notes = std::move(notes);
  result.report.tags_made_must_save = prepared.made_must_save;
  result.graphs = std::move(*graphs);
  result.merged = prepared.merged;
  result.rng_replayed = std::move(rng);
  timer.lap("report");
  return result;
}

Expected<MinCutPartition> min_cut_partition(const GraphModule& original,
                                            const MinCutConfig& config) {
  StageTimer timer;
  auto prepared = prepare_joint(original, config, timer);
  REMAT_TRY(prepared);
  auto budget = cut_within_budget(prepared->joint, prepared->info, config);
  REMAT_TRY(budget);
  CutSolution& chosen = budget->cut;
  prepared->notes.insert(prepared->notes.end(), budget->notes.begin(), budget->notes.end());
  timer.lap("flow network and min-cut");
  auto why = [&](const Node& n) -> std::string {
    if (n.meta.recompute == CheckpointPolicy::MustSave) return "marked MUST_SAVE";
    return chosen.banned_nodes.contains(&n)
               ? "cheapest cut: recomputing it is banned"
               : "cheapest cut: saving it costs less than recomputing what needs it";
  };
  auto result = partition_saving(*prepared, std::move(chosen.saved), std::move(chosen.saved_sym),
                                 "min-cut", why, timer);
  REMAT_TRY(result);
  result->report.set_stage(budget->stage);
  result->report.cut_value = chosen.cut_value;
  result->report.banned = chosen.banned;
  result->network = std::move(chosen.network);
  result->stages = timer.take();
  return result;
}

}  // namespace remat::partition
