#include "remat/partition/default_partition.h"

#include <algorithm>

#include "remat/ir/graph.h"
#include "remat/ir/node_set.h"
#include "remat/partition/node_info.h"
#include "remat/passes/recompute_tag_cleanup.h"
#include "remat/passes/rng_functionalization.h"

namespace remat::partition {

Expected<DefaultPartition> default_partition(const GraphModule& original) {
  if (Status shape = check_joint_shape(original); !shape) return shape.errors();
  GraphModule joint = original.clone();
  Graph& g = joint.graph();
  std::vector<std::string> made_must_save, recompute_inputs;
  if (passes::has_recomputable_ops(g)) {
    for (Node* n : passes::cleanup_recompute_tags(g, /*is_default_partition=*/true))
      made_must_save.push_back(n->name());
  }
  // The forward region: by tags up to the last forward-tagged node, else by dataflow.
  NodeSet forward(g);
  const Node* last = nullptr;
  for (const Node* n : g.nodes()) {
    if (n->meta.partitioner_tag == PartitionerTag::IsForward ||
        (n->op() == OpKind::Placeholder && !is_tangent(*n)))
      last = n;
  }
  std::string region_rule;
  bool tagged = false;
  for (const Node* n : g.nodes()) tagged = tagged || n->meta.partitioner_tag.has_value();
  if (tagged) {
    region_rule = "partitioner tags";
    for (const Node* n : g.nodes()) {
      if (!is_tangent(*n) && n->op() != OpKind::Output) forward.insert(n);
      if (n == last) break;
    }
  } else {
    region_rule = "dataflow from the primals to the forward outputs";
    forward = forward_dataflow_nodes(joint);
  }
  std::vector<const Node*> saved, saved_sym;
  NodeSet seen(g);
  for (const Node* n : g.nodes()) {
    if (!forward.contains(n)) continue;
    if (n->meta.sym_value() && n->op() != OpKind::Placeholder) {
      if (seen.insert(n)) saved_sym.push_back(n);
      continue;
    }
    if (is_multi_output_parent(*n)) {
      // A tuple cannot be saved, its elements can. With tags every getitem sits in the region and
      // is visited on its own; found by dataflow, the region holds only the getitems the forward
      // outputs need, so the others (layer norm's mean and rstd, nll_loss's total_weight, batch
      // norm's save_mean and save_invstd) are saved here. Those the backward does not read are
      // dropped by the extraction, as in PyTorch.
      if (!tagged) {
        for (const Node* u : n->users()) {
          if (!forward.contains(u) && !passes::must_recompute(*u) && seen.insert(u))
            saved.push_back(u);
        }
      }
      continue;
    }
    if (n->meta.recompute == CheckpointPolicy::MustSave) {
      if (seen.insert(n)) saved.push_back(n);
      continue;
    }
    std::vector<const Node*> bw_users;
    for (const Node* u : n->users()) {
      if (u->op() != OpKind::Output && !forward.contains(u)) bw_users.push_back(u);
    }
    bool only_sym_users = true;
    for (const Node* u : bw_users)
      only_sym_users = only_sym_users && u->meta.sym_value().has_value();
    if (only_sym_users) {
      for (const Node* u : bw_users) {
        if (seen.insert(u)) saved_sym.push_back(u);
      }
      continue;
    }
    if (!passes::must_recompute(*n) && seen.insert(n)) saved.push_back(n);
  }
  // Nodes left for recomputation must be computable in the backward: the inputs of a recomputed
  // node that the backward reads are saved (PyTorch relies on the clean-up's case C for region
  // inputs; a value inside a region with a non-recompute tag needs the same).
  std::vector<const Node*> work;
  for (const Node* n : g.nodes()) {
    if (!forward.contains(n) || !passes::must_recompute(*n)) continue;
    for (const Node* u : n->users()) {
      if (u->op() != OpKind::Output && !forward.contains(u)) {
        work.push_back(n);
        break;
      }
    }
  }
  NodeSet replayed(g);
  while (!work.empty()) {
    const Node* n = work.back();
    work.pop_back();
    if (!replayed.insert(n)) continue;
    for (Node* in : n->input_nodes()) {
      if (!forward.contains(in) || seen.contains(in)) continue;
      if (passes::must_recompute(*in) || is_multi_output_parent(*in)) {
        work.push_back(in);
      } else if (seen.insert(in)) {
        saved.push_back(in);
        recompute_inputs.push_back(in->name());
      }
    }
  }
  std::sort(saved.begin(), saved.end(),
            [](const Node* a, const Node* b) { return a->is_before(b); });
  JointOrigins origins;
  auto graphs = extract_forward_backward(joint, saved, saved_sym, &origins);
  REMAT_TRY(graphs);
  std::vector<std::string> rng = passes::functionalize_recomputed_rng(*graphs);
  std::vector<std::pair<std::string, std::string>> reasons;
  for (const std::string& n : made_must_save)
    reasons.emplace_back(n, "checkpoint-region input (tag clean-up made it MUST_SAVE)");
  for (const std::string& n : recompute_inputs)
    reasons.emplace_back(n, "read by a node the backward recomputes");
  DefaultPartition result;
  result.report = describe_partition(joint, *graphs, origins, "default", reasons);
  result.report.set_stage(PartitionStage::Default);
  result.report.tags_made_must_save = std::move(made_must_save);
  result.report.notes.push_back("forward region found by " + region_rule);
  for (const std::string& n : rng)
    result.report.notes.push_back("random op " + n + " is recomputed with the forward's RNG state");
  result.graphs = std::move(*graphs);
  return result;
}

}  // namespace remat::partition
