// Statement forms of every op kind, operators and the argument renderer (docs/spec/readable-text.md
// §2).
#include <gtest/gtest.h>

#include <limits>

#include "remat/print/printer.h"

namespace remat {
namespace {

TEST(Statements, EveryOpKindOperatorAndValueKind) {
  GraphModule m;
  Graph& g = m.graph();
  auto n = [](Node* x) { return Argument::node(x); };
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  y->set_args({Argument::integer(3)});  // a default value
  Node* torch_named = g.create_node_exact(OpKind::Placeholder, InternedString("torch"), "torch");
  Node* w = g.create_node(OpKind::GetAttr, "layers.0.weight");
  Node* lin = g.create_node(OpKind::CallModule, "layers.0", {n(x)});
  Node* clamp = g.create_node(OpKind::CallMethod, "clamp", {n(lin)},
                              {{InternedString("min"), Argument::floating(0.0)},
                               {InternedString("max"), Argument::floating(1.0)}});
  Node* add = g.call_function("operator.add", {n(clamp), n(w)});
  Node* neg = g.call_function("operator.neg", {n(add)});
  Node* item = g.call_function(
      "operator.getitem",
      {n(neg),
       Argument::tuple({Argument::slice(Argument::none(), Argument::integer(2), Argument::none()),
                        Argument::integer(0)})});
  Node* iadd = g.call_function("operator.iadd", {n(item), Argument::integer(1)});
  Node* attr = g.call_function("builtins.getattr", {n(iadd), Argument::string("shape")});
  Node* attr2 = g.call_function("builtins.getattr", {n(iadd), Argument::string("not id")});
  Node* sq = g.call_function("math.sqrt", {n(y)});
  Node* full = g.call_function(
      "aten.full.default",
      {Argument::list({Argument::integer(16), Argument::integer(16)}), Argument::boolean(false)},
      {{InternedString("dtype"), Argument::dtype(DType::Bool)},
       {InternedString("layout"), Argument::layout(Layout::Strided)},
       {InternedString("device"), Argument::device("cuda:0")},
       {InternedString("pin_memory"), Argument::boolean(false)}});
  Node* misc = g.call_function(
      "mylib.op.default",
      {n(full), Argument::string("it's"), Argument::floating(1e-05),
       Argument::floating(-std::numeric_limits<double>::infinity()), Argument::complex(1, -2),
       Argument::enum_member("torch.utils.checkpoint.CheckpointPolicy.MUST_SAVE"),
       Argument::tensor_constant(DType::Float32, {SymInt(2), SymInt(3)}),
       Argument::op("aten.rand.default"), Argument::dict({{"a", n(x)}}), Argument::tuple({n(x)}),
       Argument::sym("s0 + 1")});
  Node* not_ = g.call_function("operator.not_", {n(torch_named)});
  g.output(Argument::tuple({n(attr), n(attr2), n(sq), n(misc), n(not_), Argument::none()}));

  PrintedCode code = print_code(m);
  EXPECT_EQ(code.text, R"py(


def forward(self, x, y = 3, torch):
    torch_1 = torch
    layers_0_weight = getattr(self.layers, "0").weight
    layers_0 = getattr(self.layers, "0")(x)
    clamp = layers_0.clamp(min = 0.0, max = 1.0);  layers_0 = None
    add = clamp + layers_0_weight;  clamp = layers_0_weight = None
    neg = -add;  add = None
    getitem = neg[(slice(None, 2, None), 0)];  neg = None
    getitem += 1;  iadd = getitem;  getitem = None
    getattr_1 = iadd.shape
    getattr_2 = getattr(iadd, 'not id');  iadd = None
    sqrt = math_sqrt(y);  y = None
    full = torch.ops.aten.full.default([16, 16], False, dtype = torch.bool, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
    op = torch.ops.mylib.op.default(full, "it's", 1e-05, -inf, (1-2j), torch.utils.checkpoint.CheckpointPolicy.MUST_SAVE, torch.Tensor(size=[2, 3], dtype=float32), torch.ops.aten.rand.default, {'a': x}, (x,), s0 + 1);  full = x = None
    not_ = _operator_not_(torch_1);  torch_1 = None
    return (getattr_1, getattr_2, sqrt, op, not_, None)
    )py");
}

}  // namespace
}  // namespace remat
