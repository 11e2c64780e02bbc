#include "remat/partition/node_info.h"

#include <unordered_set>

#include "remat/ir/graph.h"

namespace remat::partition {

bool is_multi_output_parent(const Node& n) {
  if (n.users().empty()) return false;
  for (const Node* u : n.users()) {
    if (!is_getitem(*u)) return false;
  }
  return true;
}

bool is_computed_in_graph(const Node& n) {
  return n.op() == OpKind::CallFunction || n.op() == OpKind::GetAttr;
}

NodeSet forward_dataflow_nodes(const GraphModule& joint) {
  NodeSet computable(joint.graph());
  std::vector<Node*> ins;
  for (const Node* n : joint.graph().nodes()) {
    if (n->op() == OpKind::Placeholder) {
      if (!is_tangent(*n)) computable.insert(n);
      continue;
    }
    if (!is_computed_in_graph(*n)) continue;
    if (n->meta.partitioner_tag == PartitionerTag::MustBeInBackward) continue;
    n->collect_input_nodes(ins);
    bool ok = true;
    for (const Node* in : ins) ok = ok && computable.contains(in);
    if (ok) computable.insert(n);
  }
  NodeSet needed(joint.graph());
  std::vector<const Node*> stack;
  std::vector<Argument> outputs = joint.outputs();
  outputs.resize(num_forward_outputs(joint));
  for (const Argument& a : outputs) for_each_node(a, [&](Node* n) { stack.push_back(n); });
  for (const Node* p : joint.graph().placeholders()) {
    if (!is_tangent(*p)) stack.push_back(p);
  }
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!computable.contains(n) || !needed.insert(n)) continue;
    n->collect_input_nodes(ins);
    stack.insert(stack.end(), ins.begin(), ins.end());
  }
  return needed;
}

NodeInfo classify_nodes(const GraphModule& joint) {
  NodeInfo info;
  const Graph& g = joint.graph();
  info.required_bw = NodeSet(g);
  info.fw_order = NodeMap<int64_t>(g, -1);
  info.dist_from_bw = NodeMap<int64_t>(g, 0);
  info.static_lifetime_inputs = NodeSet(g);
  info.ops = OpClasses(g);
  for (const Node* n : g.nodes()) {
    if (is_tangent(*n) || n->meta.partitioner_tag == PartitionerTag::MustBeInBackward)
      info.required_bw.insert(n);
    if (info.required_bw.contains(n)) {
      for (const Node* u : n->users()) {
        if (u->op() != OpKind::Output) info.required_bw.insert(u);
      }
    }
  }
  info.tangents_closure = info.required_bw;
  std::vector<Argument> outputs = joint.outputs();
  for (size_t i = num_forward_outputs(joint); i < outputs.size(); ++i) {
    for_each_node(outputs[i], [&](Node* n) { info.required_bw.insert(n); });
  }
  info.required_fw = forward_dataflow_nodes(joint);
  // Static-lifetime primals: as the caller says (torch.compile passes the indices), else by
  // their AOT descriptors.
  std::unordered_set<int64_t> static_indices;
  if (joint.static_lifetime_input_indices)
    static_indices.insert(joint.static_lifetime_input_indices->begin(),
                          joint.static_lifetime_input_indices->end());
  int64_t order = 0;
  int64_t primal_index = 0;
  for (const Node* n : g.nodes()) {
    if (n->op() == OpKind::Placeholder && !is_tangent(*n)) {
      info.inputs.push_back(n);
      bool is_static = false;
      if (joint.static_lifetime_input_indices) {
        if (!is_rng_seed_input(*n)) is_static = static_indices.contains(primal_index++);
      } else {
        std::string_view desc =
            n->meta.desc().is(ArgKind::String) ? n->meta.desc().as_text() : std::string_view();
        is_static = desc.starts_with("ParamAOTInput") || desc.starts_with("BufferAOTInput");
      }
      if (is_static) info.static_lifetime_inputs.insert(n);
    }
    if (info.required_fw.contains(n)) info.fw_order[n] = order++;
  }
  // dist_from_bw, in reverse order: 1 = read directly by the backward, 10^9 = never.
  for (const Node* n = g.last(); n != nullptr; n = n->prev()) {
    if (n->op() == OpKind::Output) {
      info.dist_from_bw[n] = kFarFromBackward;
      continue;
    }
    if (!info.required_fw.contains(n)) {
      info.dist_from_bw[n] = 0;
      continue;
    }
    int64_t d = kFarFromBackward;
    for (const Node* u : n->users()) d = std::min(d, info.dist_from_bw[u] + 1);
    info.dist_from_bw[n] = d;
  }
  return info;
}

}  // namespace remat::partition
