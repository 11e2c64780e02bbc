#include "remat/autodiff/joint_graph.h"

#include <deque>
#include <queue>

#include <absl/container/flat_hash_map.h>

#include "remat/autodiff/derivative_rules.h"
#include "remat/ir/verify.h"
#include "remat/ops/op_registry.h"
#include "remat/ops/shape_rules.h"
#include "remat/passes/dead_code.h"
#include "remat/support/assert.h"

namespace remat::autodiff {
namespace {

// One node of autograd's graph: a differentiable forward op that some input made require grad.
struct AutogradNode {
  Node* op = nullptr;
  const DerivativeRule* rule = nullptr;
  int64_t seq = 0;
  std::vector<InputSlot> slots;
  std::vector<Node*> outputs;     // value node of each output (the op, or its getitems)
  std::vector<Node*> fwd_detach;  // the forward detach of each saved output
  int deps = 0;
};

bool is_floating(const Node* v) {
  const TensorMeta* t = v->meta.tensor();
  return t && (shape_rules::is_floating(t->dtype) || shape_rules::is_complex(t->dtype));
}

class JointBuilder {
 public:
  explicit JointBuilder(const GraphModule& forward) : forward_(forward) {}

  Expected<GraphModule> build() {
    Graph& g = joint_.graph();
    copy_primals();
    for (const Node* f : forward_.graph().nodes()) {
      if (f->op() != OpKind::CallFunction) continue;
      Status s = copy_forward_op(f);
      REMAT_TRY(s);
    }
    std::vector<Argument> fwd_outputs = forward_outputs();
    add_tangents(fwd_outputs);
    run_backward();
    // Outputs: the forward's, then a gradient (or None) per primal.
    std::vector<Argument> outputs = fwd_outputs;
    std::vector<Argument> descs;
    for (size_t i = 0; i < fwd_outputs.size(); ++i)
      descs.push_back(Argument::string("PlainAOTOutput(idx=" + std::to_string(i) + ")"));
    for (Node* p : primals_) {
      auto it = grad_.find(p);
      bool has_grad = requires_grad(p) && it != grad_.end();
      outputs.push_back(has_grad ? Argument::node(it->second) : Argument::none());
      descs.push_back(
          Argument::string("GradAOTOutput(grad_of=" + std::string(p->meta.desc().as_text()) + ")"));
    }
    g.set_insert_point(nullptr);
    Node* out = g.output(Argument::list(std::move(outputs)));
    out->meta.set_desc(Argument::list(std::move(descs)));
    passes::eliminate_dead_code(g);
    joint_.class_name = "inner_f";
    joint_.graph_name = forward_.graph_name.empty() ? "joint" : forward_.graph_name + "_joint";
    joint_.codegen = {CodegenKind::Pytree, {"primals", "tangents"}};
    joint_.num_primals = static_cast<int64_t>(primals_.size());
    joint_.num_tangents = num_tangents_;
    joint_.num_fwd_outputs = static_cast<int64_t>(fwd_outputs.size());
    Diagnostics problems = verify(joint_);
    REMAT_ASSERT(problems.empty()) << "the joint graph builder made an invalid graph:\n"
                                   << format_all(problems);
    return std::move(joint_);
  }

 private:
  bool requires_grad(const Node* v) const {
    auto it = requires_grad_.find(v);
    return it != requires_grad_.end() && it->second;
  }

  void copy_primals() {
    Graph& g = joint_.graph();
    int64_t index = 0;
    for (const Node* p : forward_.graph().nodes()) {
      if (p->op() != OpKind::Placeholder) continue;
      Node* j = g.placeholder("primals_" + std::to_string(++index));
      j->meta = p->meta;
      if (p->meta.desc().is_none())
        j->meta.set_desc(Argument::string("PlainAOTInput(idx=" + std::to_string(index - 1) + ")"));
      j->meta.partitioner_tag = PartitionerTag::IsForward;
      const TensorMeta* t = p->meta.tensor();
      requires_grad_[j] = t && t->requires_grad.value_or(false) && is_floating(j);
      map_[p] = j;
      primals_.push_back(j);
    }
  }

  Node* mapped(const Node* f) const {
    auto it = map_.find(f);
    REMAT_ASSERT(it != map_.end()) << "forward node used before it is defined: " << f->name();
    return it->second;
  }

  Status copy_forward_op(const Node* f) {
    Graph& g = joint_.graph();
    std::vector<Argument> args(f->args().begin(), f->args().end());
    for (Argument& a : args) map_nodes(a, [&](Node* n) { return mapped(n); });
    std::vector<Kwarg> kwargs(f->kwargs().begin(), f->kwargs().end());
    for (Kwarg& kw : kwargs) map_nodes(kw.value, [&](Node* n) { return mapped(n); });
    Node* j =
        g.create_node(OpKind::CallFunction, f->target().view(), std::move(args), std::move(kwargs));
    j->meta = f->meta;
    j->meta.partitioner_tag = PartitionerTag::IsForward;
    map_[f] = j;

    if (is_getitem(*f)) {
      // An output of a tuple-valued op: it belongs to that op's autograd node.
      Node* parent = j->args()[0].as_node();
      auto it = autograd_of_.find(parent);
      if (it != autograd_of_.end()) {
        AutogradNode& a = *it->second;
        size_t k = static_cast<size_t>(j->args()[1].as_int());
        if (a.outputs.size() <= k) a.outputs.resize(k + 1, nullptr);
        a.outputs[k] = j;
        producer_[j] = &a;
        requires_grad_[j] = output_is_differentiable(a, k) && is_floating(j);
      }
      return {};
    }

    const OpInfo* op = find_op(j->target());
    if (!op) {
      bool any = false;
      for (Node* in : j->input_nodes()) any = any || requires_grad(in);
      if (!any) return {};
      return error(
          j, "unknown op " + std::string(j->target().view()) + " on a value that requires grad");
    }
    auto call = bind(op->schema, j->args(), j->kwargs());
    REMAT_TRY(call);
    std::vector<InputSlot> slots;
    bool any_requires_grad = false;
    for (size_t i = 0; i < call->size(); ++i) {
      const Argument& a = (*call)[i];
      auto add_slot = [&](const Argument& v, size_t element) {
        if (!v.is_node() || !v.as_node()->meta.tensor()) return;
        bool rg = requires_grad(v.as_node());
        any_requires_grad = any_requires_grad || rg;
        slots.push_back({i, element, v.as_node(), rg});
      };
      if (a.is_sequence()) {
        for (size_t e = 0; e < a.elements().size(); ++e) add_slot(a.elements()[e], e);
      } else {
        add_slot(a, 0);
      }
    }
    if (!any_requires_grad || is_non_differentiable(op->target)) {
      requires_grad_[j] = false;
      return {};
    }
    const DerivativeRule* rule = find_rule(op->target);
    if (!rule)
      return error(j, "no derivative rule for " + op->target + " (its input requires grad)");
    nodes_.push_back({j, rule, static_cast<int64_t>(nodes_.size()), std::move(slots), {}, {}, 0});
    AutogradNode& a = nodes_.back();
    autograd_of_[j] = &a;
    if (!j->meta.tensor_tuple()) {
      a.outputs = {j};
      producer_[j] = &a;
      requires_grad_[j] = output_is_differentiable(a, 0) && is_floating(j);
    }
    for (size_t k : rule->saved_outputs) {
      REMAT_ASSERT(k < a.outputs.size() && a.outputs[k])
          << "saved output " << k << " of " << j->name();
      a.fwd_detach.push_back(forward_detach(a.outputs[k]));
    }
    return {};
  }

  static bool output_is_differentiable(const AutogradNode& a, size_t k) {
    const auto& list = a.rule->differentiable_outputs;
    return list.empty() || std::find(list.begin(), list.end(), k) != list.end();
  }

  // `detach(out)` right after the op: how autograd saves an output for the backward. Inside a
  // checkpoint region it is an SAC-ignored op: PREFER_RECOMPUTE with the region's id.
  Node* forward_detach(Node* out) {
    Node* d = append(out, "aten.detach.default", {Argument::node(out)});
    d->meta.stack_trace = out->meta.stack_trace;
    d->meta.partitioner_tag = PartitionerTag::IsForward;
    if (out->meta.ac_graph_id()) {
      d->meta.recompute = CheckpointPolicy::PreferRecompute;
      d->meta.set_ac_graph_id(out->meta.ac_graph_id());
    }
    return d;
  }

  // Appends a single-result registry op at the graph's insertion point (after `where` when set).
  Node* append(Node* after, std::string_view target, std::vector<Argument> args) {
    Graph& g = joint_.graph();
    if (after) g.set_insert_point_after(after);
    auto appended = append_op(g, *find_op(target), std::move(args), {});
    REMAT_ASSERT(appended.ok()) << format_all(appended.errors());
    g.set_insert_point(nullptr);
    return appended->outputs[0];
  }

  std::vector<Argument> forward_outputs() const {
    std::vector<Argument> out;
    for (Argument a : forward_.outputs()) {
      map_nodes(a, [&](Node* n) { return mapped(n); });
      out.push_back(std::move(a));
    }
    return out;
  }

  void add_tangents(const std::vector<Argument>& outputs) {
    Graph& g = joint_.graph();
    Node* first_op = nullptr;
    for (Node* n : g.nodes()) {
      if (n->op() != OpKind::Placeholder) {
        first_op = n;
        break;
      }
    }
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (!outputs[k].is_node() || !requires_grad(outputs[k].as_node())) continue;
      Node* v = outputs[k].as_node();
      g.set_insert_point(first_op);
      Node* t = g.placeholder("tangents_" + std::to_string(++num_tangents_));
      g.set_insert_point(nullptr);
      const TensorMeta& vt = *v->meta.tensor();
      TensorMeta tm(vt.dtype, vt.sizes(), TensorMeta::contiguous_strides(vt.sizes()), vt.device);
      t->meta.set_tensor(tm);
      t->meta.set_value_key(v->meta.value_key());
      t->meta.set_desc(Argument::string(
          "TangentAOTInput(output=PlainAOTOutput(idx=" + std::to_string(k) + "))"));
      t->meta.partitioner_tag = PartitionerTag::IsBackward;
      roots_.emplace_back(v, t);
    }
  }

  void run_backward() {
    // Gradients of the outputs: the tangents (accumulated when an output repeats).
    for (auto [v, t] : roots_) accumulate(v, t, nullptr);
    // Dependencies: one per edge from a reachable node to the node that made its input.
    std::vector<AutogradNode*> stack;
    absl::flat_hash_map<const AutogradNode*, bool> seen;
    for (auto [v, t] : roots_) {
      auto it = producer_.find(v);
      if (it != producer_.end() && !seen[it->second]) {
        seen[it->second] = true;
        stack.push_back(it->second);
      }
    }
    while (!stack.empty()) {
      AutogradNode* a = stack.back();
      stack.pop_back();
      for (const InputSlot& s : a->slots) {
        if (!s.requires_grad) continue;
        auto it = producer_.find(s.value);
        if (it == producer_.end()) continue;
        it->second->deps++;
        if (!seen[it->second]) {
          seen[it->second] = true;
          stack.push_back(it->second);
        }
      }
    }
    // The engine: ready nodes run most recently created first.
    auto later_first = [](const AutogradNode* a, const AutogradNode* b) { return a->seq < b->seq; };
    std::priority_queue<AutogradNode*, std::vector<AutogradNode*>, decltype(later_first)> ready(
        later_first);
    for (auto& [a, reachable] : seen) {
      if (reachable && a->deps == 0) ready.push(const_cast<AutogradNode*>(a));
    }
    while (!ready.empty()) {
      AutogradNode* a = ready.top();
      ready.pop();
      execute(*a);
      for (const InputSlot& s : a->slots) {
        if (!s.requires_grad) continue;
        auto it = producer_.find(s.value);
        if (it != producer_.end() && --it->second->deps == 0) ready.push(it->second);
      }
    }
  }

  void execute(AutogradNode& a) {
    std::vector<Node*> grads(a.outputs.size(), nullptr);
    bool any = false;
    for (size_t k = 0; k < a.outputs.size(); ++k) {
      if (!a.outputs[k]) continue;
      auto it = grad_.find(a.outputs[k]);
      if (it != grad_.end()) {
        grads[k] = it->second;
        any = true;
      }
    }
    if (!any) return;
    Graph& g = joint_.graph();
    g.set_insert_point(nullptr);
    std::vector<Node*> emitted;
    // Saved outputs are unpacked first: detach(detach(out)).
    std::vector<Node*> saved;
    for (Node* d : a.fwd_detach) {
      saved.push_back(append(nullptr, "aten.detach.default", {Argument::node(d)}));
      emitted.push_back(saved.back());
    }
    const OpInfo* op = find_op(a.op->target());
    auto call = bind(op->schema, a.op->args(), a.op->kwargs());
    REMAT_ASSERT(call.ok()) << format_all(call.errors());
    BackwardContext ctx(g, a.op, *call, a.slots, a.outputs, grads, saved);
    a.rule->backward(ctx);
    // The engine's validation: reduce broadcast gradients to their input's shape and dtype.
    std::vector<Node*> slot_grads = ctx.slot_grads();
    for (size_t i = 0; i < slot_grads.size(); ++i) {
      if (slot_grads[i]) slot_grads[i] = fit_to_input(ctx, slot_grads[i], a.slots[i].value);
    }
    for (size_t i = 0; i < slot_grads.size(); ++i) {
      if (slot_grads[i]) accumulate(a.slots[i].value, slot_grads[i], &ctx);
    }
    emitted.insert(emitted.end(), ctx.emitted().begin(), ctx.emitted().end());
    emitted.insert(emitted.end(), extra_.begin(), extra_.end());
    extra_.clear();
    for (Node* n : emitted) {
      n->meta.stack_trace = a.op->meta.stack_trace;
      n->meta.partitioner_tag = PartitionerTag::IsBackward;
    }
  }

  // at::sum_to over broadcast dims (keepdim), then a view when leading dims went away; a dtype
  // cast when the formula's dtype differs from the input's.
  static Node* fit_to_input(BackwardContext& ctx, Node* grad, const Node* input) {
    std::vector<int64_t> g = sizes_of(grad), in = sizes_of(input);
    if (g != in) {
      size_t leading = g.size() - in.size();
      std::vector<int64_t> dims;
      for (size_t i = 0; i < leading; ++i) dims.push_back(static_cast<int64_t>(i));
      for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] == 1 && g[i + leading] != 1) dims.push_back(static_cast<int64_t>(i + leading));
      }
      if (!dims.empty())
        grad = ctx.emit("aten.sum.dim_IntList",
                        {Argument::node(grad), int_list(dims), Argument::boolean(true)});
      if (leading > 0) grad = ctx.emit("aten.view.default", {Argument::node(grad), int_list(in)});
    }
    DType want = input->meta.tensor()->dtype;
    if (grad->meta.tensor()->dtype != want) {
      grad = ctx.emit("aten._to_copy.default", {Argument::node(grad)},
                      {{InternedString("dtype"), Argument::dtype(want)}});
    }
    return grad;
  }

  // The engine's InputBuffer: a second gradient for the same value is added to the first.
  void accumulate(Node* value, Node* grad, BackwardContext* ctx) {
    auto [it, fresh] = grad_.try_emplace(value, grad);
    if (fresh) return;
    Node* sum =
        ctx ? ctx->emit("aten.add.Tensor", {Argument::node(it->second), Argument::node(grad)})
            : append(nullptr, "aten.add.Tensor",
                     {Argument::node(it->second), Argument::node(grad)});
    if (!ctx) extra_.push_back(sum);
    it->second = sum;
  }

  static Diagnostic error(const Node* n, std::string message) {
    return error_message("joint graph: node " + n->name() + ": " + std::move(message));
  }

  const GraphModule& forward_;
  GraphModule joint_;
  absl::flat_hash_map<const Node*, Node*> map_;
  absl::flat_hash_map<const Node*, bool> requires_grad_;
  absl::flat_hash_map<const Node*, AutogradNode*> producer_;     // value -> autograd node
  absl::flat_hash_map<const Node*, AutogradNode*> autograd_of_;  // op node -> autograd node
  absl::flat_hash_map<const Node*, Node*> grad_;                 // value -> its gradient so far
  std::deque<AutogradNode> nodes_;
  std::vector<Node*> primals_;
  std::vector<std::pair<Node*, Node*>> roots_;  // (output value, tangent)
  std::vector<Node*> extra_;
  int64_t num_tangents_ = 0;
};

}  // namespace

Expected<GraphModule> build_joint_graph(const GraphModule& forward) {
  return JointBuilder(forward).build();
}

}  // namespace remat::autodiff
