#include "remat/partition/partition_report.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "remat/fxtext/tensor_annotation.h"
#include "remat/ir/graph.h"
#include "remat/ir/node_set.h"
#include "remat/ops/op_registry.h"
#include "remat/partition/memory_timeline.h"
#include "remat/support/assert.h"
#include "remat/support/saturating_math.h"

namespace remat::partition {
namespace {

std::string shape_text(const Node& n) {
  const TensorMeta* t = n.meta.tensor();
  if (t == nullptr) return "";
  std::vector<std::string> sizes;
  for (const SymInt& d : t->sizes())
    sizes.push_back(d.is_symbolic() ? std::string(d.expression()) : std::to_string(d.value()));
  return fxtext::format_tensor_annotation(t->dtype, sizes);
}

}  // namespace

std::string_view stage_name(PartitionStage stage) {
  switch (stage) {
    case PartitionStage::Cut:
      return "min-cut";
    case PartitionStage::RelaxedBans:
      return "min-cut without the far-apart, fusible-chain and materialized-backward bans";
    case PartitionStage::Aggressive:
      return "min-cut with aggressive recomputation (no bans but the hard ones)";
    case PartitionStage::Knapsack:
      return "min-cut after the knapsack un-banned values";
    case PartitionStage::InputsAndMustSave:
      return "the inputs and MUST_SAVE values (nothing left for the knapsack)";
    case PartitionStage::InputsOnly:
      return "the inputs only (memory budget 0)";
    case PartitionStage::Default:
      return "default partition";
    case PartitionStage::Optimal:
      return "the optimum at this budget";
  }
  return "?";
}

PartitionReport describe_partition(
    const GraphModule& joint, const ForwardBackward& graphs, const JointOrigins& origins,
    std::string strategy, const std::vector<std::pair<std::string, std::string>>& reasons) {
  PartitionReport r;
  r.strategy = std::move(strategy);
  r.set_stage(PartitionStage::Cut);
  absl::flat_hash_map<std::string, std::string> why(reasons.begin(), reasons.end());
  REMAT_ASSERT(origins.saved_values.size() == graphs.saved_values.size())
      << "origins of another partition";
  for (size_t i = 0; i < graphs.saved_values.size(); ++i) {
    const std::string& name = graphs.saved_values[i];
    const Node& joint_node = *origins.saved_values[i];
    int64_t bytes = value_bytes(joint_node);
    auto it = why.find(name);
    r.saved_values.push_back({name, bytes, it == why.end() ? "read by the backward" : it->second,
                              shape_text(joint_node), joint_node.meta.ac_graph_id(),
                              storage_root(joint_node).op() == OpKind::Placeholder});
    r.saved_bytes_total = sat_add(r.saved_bytes_total, bytes);
  }
  r.activation_bytes = activation_bytes(origins.saved_values);
  r.saved_symints = graphs.saved_symints;
  // Recomputed: what the backward computes again, i.e. what both graphs compute (PyTorch's
  // recomputed_in_bw): a backward node whose joint node the forward copies too, or (a node a
  // later pass made in the forward, such as the RNG state's) that shares a name with one. Only
  // the graphs decide it, not partitioner tags, which the readable text does not carry: the
  // same joint gives the same report from JSON or from text.
  int64_t recompute_flops = 0;
  NodeSet in_forward(joint.graph());
  absl::flat_hash_set<std::string_view> made_in_forward;
  for (const Node* n : graphs.forward.graph().nodes()) {
    if (const Node* j = JointOrigins::of(origins.forward, n))
      in_forward.insert(j);
    else if (n->op() != OpKind::Output)  // the backward's own output holds that name
      made_in_forward.insert(n->name());
  }
  for (const Node* n : graphs.backward.graph().nodes()) {
    if (n->op() != OpKind::CallFunction) continue;
    const Node* j = JointOrigins::of(origins.backward, n);
    if (!(j && in_forward.contains(j)) && !made_in_forward.contains(n->name())) continue;
    std::string reason =
        j && j->meta.recompute == CheckpointPolicy::MustSave && node_is(*n, OpCategory::View)
            ? "a view: recomputing it is free (PyTorch never bans views, MUST_SAVE ones included)"
        : j && j->meta.recompute && is_recompute(*j->meta.recompute)
            ? "tagged " + std::string(policy_name(*j->meta.recompute)) + " (checkpoint region " +
                  (j->meta.ac_graph_id() ? std::to_string(*j->meta.ac_graph_id()) : "-") + ")"
            : "cheaper to recompute from saved values than to save";
    // The joint's node: a random op replayed with the forward's RNG state is a wrapper here.
    int64_t flops = node_flops(j ? *j : *n);
    r.recomputed.push_back({n->name(), std::string(n->target().view()), reason, flops});
    recompute_flops = sat_add(recompute_flops, flops);
  }
  r.recompute_flops = recompute_flops;
  r.peak_memory_bytes = peak_live_bytes(graphs);
  return r;
}

}  // namespace remat::partition
