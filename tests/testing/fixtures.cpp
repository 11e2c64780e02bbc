#include "testing/fixtures.h"

#include <vector>

namespace remat::testing {

TensorMeta tensor(DType dtype, std::initializer_list<int64_t> sizes,
                  std::initializer_list<int64_t> strides, std::string_view device) {
  std::vector<SymInt> s(sizes.begin(), sizes.end()), st(strides.begin(), strides.end());
  return TensorMeta(dtype, s, std::span<const SymInt>(st), InternedString(device));
}

std::string traceback(std::string_view file, int line, std::string_view function,
                      std::string_view code) {
  return "  File \"" + std::string(file) + "\", line " + std::to_string(line) + ", in " +
         std::string(function) + "\n    " + std::string(code) + "\n";
}

GraphModule seed_joint_graph() {
  GraphModule m;
  m.class_name = "inner_f";
  m.graph_name = "seed_joint";
  m.codegen = {CodegenKind::Pytree, {"primals", "tangents"}};
  m.num_primals = 2;
  m.num_tangents = 1;
  m.num_fwd_outputs = 1;
  Graph& g = m.graph();
  const std::string file = "/data/users/hirsheybar/new2/pytorch/tmp5.py";
  InternedString fn_trace(traceback(
      file, 9, "fn", "gn, torch.sin(x), y, use_reentrant=True, preserve_rng_state=False"));
  InternedString gn_trace(traceback(file, 4, "gn", "return torch.sigmoid(torch.matmul(x, y))"));
  TensorMeta f44 = tensor(DType::Float32, {4, 4}, {4, 1}, "cuda:0");
  TensorMeta f44t = tensor(DType::Float32, {4, 4}, {1, 4}, "cuda:0");
  auto val = [](Node* n, const TensorMeta& t) {
    n->meta.set_tensor(t);
    n->meta.set_value_key(ValueKey::Val);
    return n;
  };
  auto call = [&](std::string_view target, std::vector<Argument> args, InternedString trace,
                  const TensorMeta& t, bool tagged = false) {
    Node* n = val(g.call_function(target, std::move(args)), t);
    n->meta.stack_trace = trace;
    if (tagged) {
      n->meta.recompute = CheckpointPolicy::PreferRecompute;
      n->meta.set_ac_graph_id(2);
    }
    return n;
  };
  auto node = [](Node* n) { return Argument::node(n); };

  Node* p1 = val(g.placeholder("primals_1"), f44);
  p1->meta.set_desc(Argument::string("PlainAOTInput(idx=0)"));
  Node* p2 = val(g.placeholder("primals_2"), f44);
  p2->meta.set_desc(Argument::string("PlainAOTInput(idx=1)"));
  Node* t1 = val(g.placeholder("tangents_1"), f44);
  t1->meta.set_desc(Argument::string("TangentAOTInput(output=PlainAOTOutput(idx=0))"));

  Node* sin = call("aten.sin.default", {node(p1)}, fn_trace, f44);
  Node* mm = call("aten.mm.default", {node(sin), node(p2)}, gn_trace, f44, true);
  Node* sigmoid = call("aten.sigmoid.default", {node(mm)}, gn_trace, f44, true);
  Node* detach = call("aten.detach.default", {node(sigmoid)}, gn_trace, f44, true);
  Node* detach_1 = call("aten.detach.default", {node(detach)}, gn_trace, f44);
  Node* sigmoid_backward =
      call("aten.sigmoid_backward.default", {node(t1), node(detach_1)}, gn_trace, f44);
  Node* t = call("aten.t.default", {node(sin)}, gn_trace, f44t);
  Node* mm_1 = call("aten.mm.default", {node(t), node(sigmoid_backward)}, gn_trace, f44);
  Node* t_1 = call("aten.t.default", {node(p2)}, gn_trace, f44t);
  Node* mm_2 = call("aten.mm.default", {node(sigmoid_backward), node(t_1)}, gn_trace, f44);
  Node* cos = call("aten.cos.default", {node(p1)}, fn_trace, f44);
  Node* mul = call("aten.mul.Tensor", {node(mm_2), node(cos)}, fn_trace, f44);
  Node* out = g.output(Argument::list({node(sigmoid), node(mul), node(mm_1)}));
  out->meta.set_desc(
      Argument::list({Argument::string("PlainAOTOutput(idx=0)"),
                      Argument::string("GradAOTOutput(grad_of=PlainAOTInput(idx=0))"),
                      Argument::string("GradAOTOutput(grad_of=PlainAOTInput(idx=1))")}));
  return m;
}

}  // namespace remat::testing
