#include "remat/partition/extract.h"

#include <algorithm>

#include "remat/ir/graph.h"
#include "remat/ir/input_lists.h"
#include "remat/ir/node_set.h"
#include "remat/ir/purity.h"
#include "remat/partition/node_info.h"
#include "remat/passes/autograd_order.h"
#include "remat/support/assert.h"

namespace remat::partition {
namespace {

// Which nodes of `joint` a graph with `inputs` can compute: the inputs, every get_attr (a module
// attribute, such as a lifted tensor constant, is there for both graphs), then every call_function
// whose inputs are all available; none tagged `invalid_tag` (docs/spec/partitioning.md §8.1).
NodeSet available_nodes(const GraphModule& joint, const InputLists& input_lists,
                        const std::vector<const Node*>& inputs, PartitionerTag invalid_tag) {
  NodeSet available(joint.graph());
  for (const Node* in : inputs) available.insert(in);
  for (const Node* n : joint.graph().nodes()) {
    if (!is_computed_in_graph(*n) || n->meta.partitioner_tag == invalid_tag) continue;
    auto ins = input_lists.of(n);
    if (std::all_of(ins.begin(), ins.end(), [&](const Node* in) { return available.contains(in); }))
      available.insert(n);
  }
  return available;
}

// The nodes the values in `roots` are computed from, stopping at `inputs` (which replace what
// they were computed from).
NodeSet needed_nodes(const Graph& joint, const InputLists& input_lists,
                     std::vector<const Node*> roots, const std::vector<const Node*>& inputs) {
  NodeSet stop(joint), needed(joint);
  for (const Node* in : inputs) stop.insert(in);
  while (!roots.empty()) {
    const Node* n = roots.back();
    roots.pop_back();
    if (!needed.insert(n) || stop.contains(n)) continue;
    auto ins = input_lists.of(n);
    roots.insert(roots.end(), ins.begin(), ins.end());
  }
  return needed;
}

// An in-place op on a value the joint computes itself (PyTorch 1.13's dropout: `bernoulli_` on
// an `empty_like`) changes nothing outside the graph: it is needed only through its users, as
// 1.13's dead-code elimination assumes. Keeping it for its "side effect" would make the backward
// draw new random numbers wherever its input happens to be computable there.
bool mutates_only_an_intermediate(const Node& n) {
  if (!is_in_place(n) || n.args().empty() || !n.args()[0].is_node()) return false;
  return n.args()[0].as_node()->op() != OpKind::Placeholder;
}

// The subgraph of `joint` computable from `inputs` that produces `outputs`: placeholders for
// the inputs, then the get_attrs and call_functions the outputs (and impure available nodes) need,
// in joint order. Only needed nodes are copied, so nothing is created to be removed again.
Expected<GraphModule> extract_subgraph(const GraphModule& joint, const InputLists& input_lists,
                                       const std::vector<const Node*>& inputs,
                                       const std::vector<Argument>& outputs, std::string_view what,
                                       PartitionerTag invalid_tag,
                                       std::vector<const Node*>& origins) {
  NodeSet available = available_nodes(joint, input_lists, inputs, invalid_tag);
  std::vector<const Node*> roots;
  for (const Argument& a : outputs) {
    const Node* missing = nullptr;
    for_each_node(a, [&](Node* x) {
      roots.push_back(x);
      if (!missing && !available.contains(x)) missing = x;
    });
    if (!missing) continue;
    // Name the chain down to the value that is missing: neither an input nor computable.
    std::string chain = missing->name();
    for (bool deeper = true; deeper;) {
      deeper = false;
      for (Node* in : missing->input_nodes()) {
        if (available.contains(in)) continue;
        missing = in;
        chain += " <- " + in->name();
        deeper = true;
        break;
      }
    }
    return error_message("the " + std::string(what) + " graph cannot compute " + chain + ": " +
                         missing->name() +
                         " is neither one of its inputs nor computable from them");
  }
  for (const Node* n : joint.graph().nodes()) {
    if (n->op() == OpKind::CallFunction && available.contains(n) && is_impure(*n) &&
        !mutates_only_an_intermediate(*n))
      roots.push_back(n);
  }
  NodeSet needed = needed_nodes(joint.graph(), input_lists, std::move(roots), inputs);

  GraphModule m;
  m.class_name = "GraphModule";
  Graph& g = m.graph();
  g.reserve(needed.size() + inputs.size() + 1);
  NodeMap<Node*> env(joint.graph(), nullptr);
  origins.assign(needed.size() + inputs.size() + 1, nullptr);
  auto origin_of = [&](const Node* copy) -> const Node*& {
    if (copy->id() >= origins.size()) origins.resize(copy->id() + 1, nullptr);
    return origins[copy->id()];
  };
  for (const Node* in : inputs) {
    Node* p = g.create_node_exact(OpKind::Placeholder, InternedString(in->name()), in->name());
    REMAT_ASSERT(p != nullptr) << "duplicate input " << in->name();
    p->meta = in->meta;
    env[in] = p;
    origin_of(p) = in;
  }
  auto mapped = [&](Node* x) {
    Node* copy = env[x];
    REMAT_ASSERT(copy != nullptr) << x->name() << " used before its definition";
    return copy;
  };
  for (const Node* n : joint.graph().nodes()) {
    if (!is_computed_in_graph(*n) || env[n] != nullptr || !needed.contains(n)) continue;
    Node* c = g.append_copy(*n, mapped);  // joint nodes not among the inputs: names unique
    env[n] = c;
    origin_of(c) = n;
  }
  std::vector<Argument> out;
  for (const Argument& a : outputs) {
    Argument copy = a;
    map_nodes(copy, mapped);
    out.push_back(std::move(copy));
  }
  g.append_output(Argument::list(std::move(out)));  // the joint's own output is not copied
  return m;
}

}  // namespace

Expected<ForwardBackward> extract_forward_backward(const GraphModule& joint,
                                                   const std::vector<const Node*>& saved,
                                                   const std::vector<const Node*>& saved_symints,
                                                   JointOrigins* origins) {
  // A tuple cannot cross from the forward to the backward: a saved tuple saves its elements (a
  // MUST_SAVE layer norm in the memory budget's last stage, say), each once, in place.
  std::vector<const Node*> saved_values;
  NodeSet listed(joint.graph());
  for (const Node* v : saved) {
    if (!is_multi_output_parent(*v)) {
      if (listed.insert(v)) saved_values.push_back(v);
      continue;
    }
    for (const Node* u : v->users()) {
      if (listed.insert(u)) saved_values.push_back(u);
    }
  }
  size_t num_fwd = num_forward_outputs(joint);
  std::vector<Argument> outputs = joint.outputs();
  std::vector<Argument> fwd_outputs(outputs.begin(), outputs.begin() + static_cast<long>(num_fwd));
  std::vector<Argument> grads(outputs.begin() + static_cast<long>(num_fwd), outputs.end());
  std::vector<const Node*> primals, tangents;
  for (const Node* p : joint.graph().placeholders())
    (is_tangent(*p) ? tangents : primals).push_back(p);

  auto bw_inputs = [&](const std::vector<const Node*>& values,
                       const std::vector<const Node*>& syms) {
    std::vector<const Node*> in = syms;
    in.insert(in.end(), values.begin(), values.end());
    in.insert(in.end(), tangents.begin(), tangents.end());
    return in;
  };
  // Which saved values the backward reads at all: those its outputs are computed from.
  std::vector<const Node*> all_inputs = bw_inputs(saved_values, saved_symints);
  std::vector<const Node*> grad_roots;
  for (const Argument& a : grads) for_each_node(a, [&](Node* x) { grad_roots.push_back(x); });
  const InputLists input_lists(joint.graph());  // five walks below read them
  NodeSet reached = needed_nodes(joint.graph(), input_lists, std::move(grad_roots), all_inputs);
  auto used = [&](const std::vector<const Node*>& list) {
    std::vector<const Node*> out;
    for (const Node* v : list) {
      if (reached.contains(v)) out.push_back(v);
    }
    return out;
  };
  ForwardBackward result;
  std::vector<const Node*> values = used(saved_values), syms = used(saved_symints);
  std::vector<Argument> fw_out = fwd_outputs;
  for (const Node* v : values) fw_out.push_back(Argument::node(const_cast<Node*>(v)));
  for (const Node* v : syms) fw_out.push_back(Argument::node(const_cast<Node*>(v)));
  JointOrigins local;
  JointOrigins& from = origins != nullptr ? *origins : local;
  auto forward = extract_subgraph(joint, input_lists, primals, fw_out, "forward",
                                  PartitionerTag::MustBeInBackward, from.forward);
  REMAT_TRY(forward);
  auto backward = extract_subgraph(joint, input_lists, bw_inputs(values, syms), grads, "backward",
                                   PartitionerTag::MustBeInForward, from.backward);
  REMAT_TRY(backward);
  passes::reorder_like_autograd(backward->graph());
  passes::raise_getitems(forward->graph());
  passes::raise_getitems(backward->graph());
  forward->graph_name = joint.graph_name + "_fw";
  backward->graph_name = joint.graph_name + "_bw";
  forward->num_real_outputs = static_cast<int64_t>(num_fwd);
  for (const Node* v : values) result.saved_values.push_back(v->name());
  from.saved_values = values;
  for (const Node* v : syms) result.saved_symints.push_back(v->name());
  forward->saved_values = result.saved_values;
  result.forward = std::move(*forward);
  result.backward = std::move(*backward);
  return result;
}

}  // namespace remat::partition
