// Byte-exact printing: the seed's example, the spec's verbatim examples, every tag rule.
#include "remat/print/printer.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "remat/io/graph_json.h"
#include "testing/fixtures.h"
#include "testing/golden.h"

namespace remat {
namespace {

using testing::tensor;
using testing::traceback;

/// What print(gm.print_readable(...)) writes.
std::string printed(const GraphModule& m, const PrintOptions& o) {
  return print_readable(m, o).text + "\n";
}

/// torch._dynamo.testing.normalize_gm: comment lines removed, trailing whitespace stripped.
std::string normalize_gm(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line[first] == '#') continue;
    line.erase(line.find_last_not_of(' ') == std::string::npos ? 0
                                                               : line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  while (out.size() >= 2 && out.ends_with("\n\n")) out.pop_back();
  return out;
}

std::string strip_trailing_spaces(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    size_t last = line.find_last_not_of(' ');
    out += (last == std::string::npos ? "" : line.substr(0, last + 1)) + "\n";
  }
  while (out.size() >= 2 && out.ends_with("\n\n")) out.pop_back();
  return out;
}

Node* with_val(Node* n, const TensorMeta& t) {
  n->meta.set_tensor(t);
  n->meta.set_value_key(ValueKey::Val);
  return n;
}

TEST(Printer, SeedJointGraphReproducesTheSeedExample) {
  GraphModule m = testing::seed_joint_graph();
  std::string text = printed(m, PrintOptions::tlparse());
  EXPECT_NE(text.find("# ac_graph_id: 2 - PREFER_RECOMPUTE"),
            std::string::npos);  // the seed's test
  testing::expect_golden("print/seed_joint_tlparse.txt", text);
}

TEST(Printer, SeedJointGraphInEveryTagStyle) {
  GraphModule m = testing::seed_joint_graph();
  for (auto [style, name] : {std::pair{TagStyle::Inline2025, "inline-2025"},
                             std::pair{TagStyle::Inline2026, "inline-2026"}}) {
    PrintOptions o = PrintOptions::tlparse();
    o.tag_style = style;
    testing::expect_golden(std::string("print/seed_joint_tlparse_") + name + ".txt", printed(m, o));
  }
  PrintOptions o = PrintOptions::tlparse();
  o.tag_style = TagStyle::Inline2026;
  std::string text = printed(m, o);
  EXPECT_NE(text.find("# ac_graph_id: 2 - PREFER_RECOMPUTE File: /data/users/hirsheybar/new2/"
                      "pytorch/tmp5.py:4 in gn, code: return torch.sigmoid(torch.matmul(x, y))"),
            std::string::npos);
  o.tag_style = TagStyle::Inline2025;
  EXPECT_NE(printed(m, o).find("        # # ac_graph_id: 2 - PREFER_RECOMPUTE File: "),
            std::string::npos);
}

TEST(Printer, SeedJointGraphDefaultsAndCode) {
  GraphModule m = testing::seed_joint_graph();
  testing::expect_golden("print/seed_joint_default.txt", printed(m, PrintOptions::readable()));
  PrintedCode code = print_code(m);
  EXPECT_EQ(
      code.text.rfind("\n\n\ndef forward(self, primals, tangents):\n    primals_1, primals_2, "
                      "tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], "
                      "self._in_spec)\n    sin = torch.ops.aten.sin.default(primals_1)\n",
                      0),
      0U)
      << code.text;
  EXPECT_TRUE(code.text.ends_with(
      "    return pytree.tree_unflatten([sigmoid, mul, mm_1], self._out_spec)\n    "));
  EXPECT_NE(code.text.find("    # ac_graph_id: 2 - PREFER_RECOMPUTE\n    mm = "), std::string::npos)
      << "seed-style tag lines are emitted outside verbose mode too";
  EXPECT_EQ(code.text.find("File:"), std::string::npos);
}

TEST(Printer, LineMapPointsAtNodes) {
  GraphModule m = testing::seed_joint_graph();
  PrintedCode p = print_readable(m, PrintOptions::tlparse());
  std::istringstream in(p.text);
  std::string line;
  size_t i = 0;
  size_t checked = 0;
  while (std::getline(in, line)) {
    ASSERT_LT(i, p.line_nodes.size());
    size_t eq = line.find(": \"f32");
    if (eq != std::string::npos && line.find(" = ") != std::string::npos) {
      std::string name = line.substr(line.find_first_not_of(' '), eq - line.find_first_not_of(' '));
      ASSERT_NE(p.line_nodes[i], nullptr) << line;
      EXPECT_EQ(p.line_nodes[i]->name(), name);
      ++checked;
    }
    ++i;
  }
  EXPECT_EQ(i, p.line_nodes.size());
  EXPECT_EQ(checked, 12U);
}

TEST(Printer, SpecExample3HopWithNestedSubmodule) {
  GraphModule m;
  m.class_name = "GraphModule";
  Graph& g = m.graph();
  TensorMeta f44 = tensor(DType::Float32, {4, 4}, {4, 1});
  Node* x = with_val(g.placeholder("L_x_"), f44);
  g.rename(x, "l_x_");
  Node* body = g.create_node(OpKind::GetAttr, "wrap_body_0");
  body->meta.stack_trace = InternedString(traceback("/t.py", 5, "fn", "return checkpoint(gn, x)"));
  Node* tag = g.call_function("higher_order.tag_activation_checkpoint",
                              {Argument::node(body), Argument::node(x)},
                              {{InternedString("use_reentrant"), Argument::boolean(true)}});
  tag->meta.stack_trace = body->meta.stack_trace;
  Node* item = with_val(
      g.call_function("operator.getitem", {Argument::node(tag), Argument::integer(0)}), f44);
  item->meta.stack_trace = body->meta.stack_trace;
  g.output(Argument::tuple({Argument::node(item)}));
  auto sub = std::make_unique<GraphModule>();
  Node* sx = with_val(sub->graph().placeholder("l_x_"), f44);
  Node* y = with_val(sub->graph().call_function("torch.sin", {Argument::node(sx)}, {}, "y"), f44);
  y->meta.recompute = CheckpointPolicy::PreferRecompute;
  y->meta.set_ac_graph_id(1);
  sub->graph().output(Argument::tuple({Argument::node(y)}));
  m.submodules.push_back({"wrap_body_0", std::move(sub)});

  EXPECT_EQ(normalize_gm(printed(m, {})), R"py(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 4]"):
        l_x_ = L_x_

        wrap_body_0 = self.wrap_body_0
        tag_activation_checkpoint = torch.ops.higher_order.tag_activation_checkpoint(wrap_body_0, l_x_, use_reentrant = True);  wrap_body_0 = l_x_ = None
        getitem: "f32[4, 4]" = tag_activation_checkpoint[0];  tag_activation_checkpoint = None
        return (getitem,)

    class wrap_body_0(torch.nn.Module):
        def forward(self, l_x_: "f32[4, 4]"):
            y: "f32[4, 4]" = torch.sin(l_x_);  l_x_ = None
            return (y,)
)py");
  testing::expect_golden("print/example3_hop.txt", printed(m, {}));
}

TEST(Printer, SpecExample4PartitionedForwardGroups) {
  GraphModule m;
  m.class_name = "GraphModule";
  Graph& g = m.graph();
  TensorMeta f = tensor(DType::Float32, {4, 4}, {4, 1});
  InternedString a(traceback("/t.py", 3, "f", "x = torch.mm(x, x)"));
  InternedString b(traceback("/t.py", 4, "f", "y = x.sin()"));
  InternedString c(traceback("/t.py", 5, "f", "z = torch.mm(x, p).sin().cos()"));
  InternedString d(traceback("/t.py", 6, "f", "return z + p.sin()"));
  Node* p = with_val(g.placeholder("primals_1"), f);
  auto call = [&](std::string_view t, std::vector<Argument> args, InternedString trace) {
    Node* n = with_val(g.call_function(t, std::move(args)), f);
    n->meta.stack_trace = trace;
    return n;
  };
  Node* mm = call("aten.mm.default", {Argument::node(p), Argument::node(p)}, a);
  Node* mm_1 = call("aten.mm.default", {Argument::node(mm), Argument::node(p)}, a);
  Node* sin = call("aten.sin.default", {Argument::node(p)}, b);
  Node* sin_1 = call("aten.sin.default", {Argument::node(mm_1)}, c);
  Node* cos = call("aten.cos.default", {Argument::node(sin_1)}, c);
  Node* sin_2 = call("aten.sin.default", {Argument::node(p)}, c);
  Node* add = call("aten.add.Tensor", {Argument::node(cos), Argument::node(sin_2)}, d);
  g.output(Argument::tuple({Argument::node(add), Argument::node(sin), Argument::node(p)}));
  EXPECT_EQ(normalize_gm(printed(m, {})), R"py(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4, 4]"):
        mm: "f32[4, 4]" = torch.ops.aten.mm.default(primals_1, primals_1)
        mm_1: "f32[4, 4]" = torch.ops.aten.mm.default(mm, primals_1);  mm = None

        sin: "f32[4, 4]" = torch.ops.aten.sin.default(primals_1)

        sin_1: "f32[4, 4]" = torch.ops.aten.sin.default(mm_1);  mm_1 = None
        cos: "f32[4, 4]" = torch.ops.aten.cos.default(sin_1);  sin_1 = None
        sin_2: "f32[4, 4]" = torch.ops.aten.sin.default(primals_1)

        add: "f32[4, 4]" = torch.ops.aten.add.Tensor(cos, sin_2);  cos = sin_2 = None
        return (add, sin, primals_1)
)py");
}

TEST(Printer, SpecExample5ExpandedPytreeJointWithNoneOutput) {
  GraphModule m;
  m.class_name = "inner_f";
  m.codegen = {CodegenKind::Pytree, {"primals", "tangents"}};
  Graph& g = m.graph();
  auto ph = [&](const char* name, std::initializer_list<int64_t> s,
                std::initializer_list<int64_t> st, const char* desc) {
    Node* n = with_val(g.placeholder(name), tensor(DType::Float32, s, st));
    n->meta.set_desc(Argument::string(desc));
    return n;
  };
  Node* p1 = ph("primals_1", {2, 3}, {3, 1}, "ParamAOTInput(target='linear.weight')");
  Node* p2 = ph("primals_2", {2}, {1}, "ParamAOTInput(target='linear.bias')");
  Node* p3 = ph("primals_3", {4, 3}, {3, 1}, "PlainAOTInput(idx=0)");
  Node* t1 = ph("tangents_1", {4, 2}, {2, 1}, "TangentAOTInput(output=PlainAOTOutput(idx=0))");
  auto call = [&](std::string_view t, std::vector<Argument> args, std::initializer_list<int64_t> s,
                  std::initializer_list<int64_t> st) {
    return with_val(g.call_function(t, std::move(args)), tensor(DType::Float32, s, st));
  };
  auto n = [](Node* x) { return Argument::node(x); };
  auto ints = [](std::initializer_list<int64_t> v) {
    std::vector<Argument> out;
    for (int64_t i : v) out.push_back(Argument::integer(i));
    return Argument::list(out);
  };
  Node* tr = call("prims.transpose.default", {n(p1), ints({1, 0})}, {3, 2}, {1, 3});
  Node* mm = call("aten.mm.default", {n(p3), n(tr)}, {4, 2}, {2, 1});
  Node* mul = call("prims.mul.default", {n(mm), Argument::floating(1.0)}, {4, 2}, {2, 1});
  Node* mul_1 = call("prims.mul.default", {n(p2), Argument::floating(1.0)}, {2}, {1});
  Node* bid =
      call("prims.broadcast_in_dim.default", {n(mul_1), ints({4, 2}), ints({1})}, {4, 2}, {0, 1});
  Node* add = call("prims.add.default", {n(mul), n(bid)}, {4, 2}, {2, 1});
  Node* tr1 = call("prims.transpose.default", {n(t1), ints({1, 0})}, {2, 4}, {1, 2});
  Node* mm_1 = call("aten.mm.default", {n(tr1), n(p3)}, {2, 3}, {3, 1});
  Node* tr2 = call("prims.transpose.default", {n(mm_1), ints({1, 0})}, {3, 2}, {1, 3});
  Node* sum = call("prims.sum.default", {n(t1), ints({0})}, {2}, {1});
  Node* bid1 =
      call("prims.broadcast_in_dim.default", {n(sum), ints({1, 2}), ints({1})}, {1, 2}, {2, 1});
  Node* as = call("aten.as_strided.default", {n(bid1), ints({2}), ints({1})}, {2}, {1});
  Node* tr3 = call("prims.transpose.default", {n(tr2), ints({1, 0})}, {2, 3}, {3, 1});
  Node* out = g.output(Argument::list({n(add), n(tr3), n(as), Argument::none()}));
  out->meta.set_desc(Argument::list(
      {Argument::string("PlainAOTOutput(idx=0)"),
       Argument::string("GradAOTOutput(grad_of=ParamAOTInput(target='linear.weight'))"),
       Argument::string("GradAOTOutput(grad_of=ParamAOTInput(target='linear.bias'))"),
       Argument::none()}));
  PrintOptions o;
  o.expanded_def = true;
  EXPECT_EQ(normalize_gm(printed(m, o)), R"py(class inner_f(torch.nn.Module):
    def forward(
        self,
        primals,
        tangents,
    ):
        primals_1: "f32[2, 3]"  # ParamAOTInput(target='linear.weight')
        primals_2: "f32[2]"  # ParamAOTInput(target='linear.bias')
        primals_3: "f32[4, 3]"  # PlainAOTInput(idx=0)
        tangents_1: "f32[4, 2]"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, primals_2, primals_3, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        transpose: "f32[3, 2]" = torch.ops.prims.transpose.default(primals_1, [1, 0]);  primals_1 = None
        mm: "f32[4, 2]" = torch.ops.aten.mm.default(primals_3, transpose);  transpose = None
        mul: "f32[4, 2]" = torch.ops.prims.mul.default(mm, 1.0);  mm = None
        mul_1: "f32[2]" = torch.ops.prims.mul.default(primals_2, 1.0);  primals_2 = None
        broadcast_in_dim: "f32[4, 2]" = torch.ops.prims.broadcast_in_dim.default(mul_1, [4, 2], [1]);  mul_1 = None
        add: "f32[4, 2]" = torch.ops.prims.add.default(mul, broadcast_in_dim);  mul = broadcast_in_dim = None
        transpose_1: "f32[2, 4]" = torch.ops.prims.transpose.default(tangents_1, [1, 0])
        mm_1: "f32[2, 3]" = torch.ops.aten.mm.default(transpose_1, primals_3);  transpose_1 = primals_3 = None
        transpose_2: "f32[3, 2]" = torch.ops.prims.transpose.default(mm_1, [1, 0]);  mm_1 = None
        sum_1: "f32[2]" = torch.ops.prims.sum.default(tangents_1, [0]);  tangents_1 = None
        broadcast_in_dim_1: "f32[1, 2]" = torch.ops.prims.broadcast_in_dim.default(sum_1, [1, 2], [1]);  sum_1 = None
        as_strided: "f32[2]" = torch.ops.aten.as_strided.default(broadcast_in_dim_1, [2], [1]);  broadcast_in_dim_1 = None
        transpose_3: "f32[2, 3]" = torch.ops.prims.transpose.default(transpose_2, [1, 0]);  transpose_2 = None
        return pytree.tree_unflatten([
            add,  # PlainAOTOutput(idx=0)
            transpose_3,  # GradAOTOutput(grad_of=ParamAOTInput(target='linear.weight'))
            as_strided,  # GradAOTOutput(grad_of=ParamAOTInput(target='linear.bias'))
            None,  # None
        ], self._out_spec)
)py");
  // Non-expanded: the `...; ` annotation line (trailing space), a line of 4 spaces
  // (docs/spec/readable-text.md §1.3), then the binding.
  std::string plain = printed(m, {});
  EXPECT_NE(
      plain.find("    def forward(self, primals, tangents):\n        primals_1: \"f32[2, 3]\"; "
                 "primals_2: \"f32[2]\"; primals_3: \"f32[4, 3]\"; tangents_1: \"f32[4, 2]\"; \n"
                 "    \n        primals_1, primals_2, primals_3, tangents_1, = fx_pytree"),
      std::string::npos)
      << plain;
}

TEST(Printer, SpecExample6PlainExpandedDefSymAndTupleReturn) {
  GraphModule m;
  m.class_name = "GraphModule";
  Graph& g = m.graph();
  auto sym = [&](const char* name, const char* expr, const char* desc) {
    Node* n = g.placeholder(name);
    n->meta.set_sym_value(SymInt::symbolic(expr));
    n->meta.set_value_key(ValueKey::Val);
    n->meta.set_desc(Argument::string(desc));
    return n;
  };
  std::vector<SymInt> sizes{SymInt::symbolic("s47"), SymInt::symbolic("s16")};
  std::vector<SymInt> strides{SymInt::symbolic("s16"), SymInt(1)};
  TensorMeta t(DType::Float32, sizes, std::span<const SymInt>(strides), InternedString("cpu"));
  Node* p1 = sym("primals_1", "s47", "PlainAOTInput(idx=0)");
  sym("primals_2", "s16", "PlainAOTInput(idx=1)");
  Node* p3 = with_val(g.placeholder("primals_3"), t);
  p3->meta.set_desc(
      Argument::string("SubclassGetAttrAOTInput(base=PlainAOTInput(idx=2), attr='a')"));
  Node* p4 = with_val(g.placeholder("primals_4"), t);
  p4->meta.set_desc(
      Argument::string("SubclassGetAttrAOTInput(base=PlainAOTInput(idx=2), attr='b')"));
  Node* p5 = sym("primals_5", "s47", "SubclassSizeAOTInput(base=PlainAOTInput(idx=2), idx=0)");
  sym("primals_6", "s16", "SubclassSizeAOTInput(base=PlainAOTInput(idx=2), idx=1)");
  Node* p7 = sym("primals_7", "s16", "SubclassStrideAOTInput(base=PlainAOTInput(idx=2), idx=0)");
  Node* mul =
      with_val(g.call_function("aten.mul.Tensor", {Argument::node(p3), Argument::node(p1)}), t);
  g.create_name("mul");
  g.create_name("mul");
  Node* mul_3 =
      with_val(g.call_function("aten.mul.Tensor", {Argument::node(p4), Argument::node(p1)}), t);
  auto n = [](Node* x) { return Argument::node(x); };
  Node* out =
      g.output(Argument::tuple({n(mul), n(mul_3), n(p5), n(p7), n(p7), n(p1), n(p5), n(p7)}));
  out->meta.set_desc(Argument::list(
      {Argument::string("SubclassGetAttrAOTOutput(base=PlainAOTOutput(idx=0), attr='a')"),
       Argument::string("SubclassGetAttrAOTOutput(base=PlainAOTOutput(idx=0), attr='b')"),
       Argument::string("SubclassSizeAOTOutput(base=PlainAOTOutput(idx=0), idx=0)"),
       Argument::string("SubclassSizeAOTOutput(base=PlainAOTOutput(idx=0), idx=1)"),
       Argument::string("SubclassStrideAOTOutput(base=PlainAOTOutput(idx=0), idx=0)"),
       Argument::string("SavedForBackwardsAOTOutput(idx=0)"),
       Argument::string("SavedForBackwardsAOTOutput(idx=1)"),
       Argument::string("SavedForBackwardsAOTOutput(idx=2)")}));
  PrintOptions o;
  o.expanded_def = true;
  EXPECT_EQ(normalize_gm(printed(m, o)), R"py(class GraphModule(torch.nn.Module):
    def forward(
        self,
        primals_1: "Sym(s47)",  # PlainAOTInput(idx=0)
        primals_2: "Sym(s16)",  # PlainAOTInput(idx=1)
        primals_3: "f32[s47, s16]",  # SubclassGetAttrAOTInput(base=PlainAOTInput(idx=2), attr='a')
        primals_4: "f32[s47, s16]",  # SubclassGetAttrAOTInput(base=PlainAOTInput(idx=2), attr='b')
        primals_5: "Sym(s47)",  # SubclassSizeAOTInput(base=PlainAOTInput(idx=2), idx=0)
        primals_6: "Sym(s16)",  # SubclassSizeAOTInput(base=PlainAOTInput(idx=2), idx=1)
        primals_7: "Sym(s16)",  # SubclassStrideAOTInput(base=PlainAOTInput(idx=2), idx=0)
    ):
        mul: "f32[s47, s16]" = torch.ops.aten.mul.Tensor(primals_3, primals_1);  primals_3 = None
        mul_3: "f32[s47, s16]" = torch.ops.aten.mul.Tensor(primals_4, primals_1);  primals_4 = None
        return (
            mul,  # SubclassGetAttrAOTOutput(base=PlainAOTOutput(idx=0), attr='a')
            mul_3,  # SubclassGetAttrAOTOutput(base=PlainAOTOutput(idx=0), attr='b')
            primals_5,  # SubclassSizeAOTOutput(base=PlainAOTOutput(idx=0), idx=0)
            primals_7,  # SubclassSizeAOTOutput(base=PlainAOTOutput(idx=0), idx=1)
            primals_7,  # SubclassStrideAOTOutput(base=PlainAOTOutput(idx=0), idx=0)
            primals_1,  # SavedForBackwardsAOTOutput(idx=0)
            primals_5,  # SavedForBackwardsAOTOutput(idx=1)
            primals_7,  # SavedForBackwardsAOTOutput(idx=2)
        )
)py");
}

TEST(Printer, SpecExample7AnnotationsAndZeroUserSelfDeletion) {
  GraphModule m;
  m.class_name = "<lambda>";
  Graph& g = m.graph();
  TensorMeta f = tensor(DType::Float32, {2, 2}, {2, 1});
  Node* a0 = with_val(g.placeholder("arg0_1"), f);
  Node* a1 = with_val(g.placeholder("arg1_1"), f);
  auto call = [&](std::string_view t, std::vector<Argument> args, int stream, int line) {
    Node* n = with_val(g.call_function(t, std::move(args)), f);
    n->meta.set_custom(Argument::dict({{"stream", Argument::integer(stream)}}));
    n->meta.stack_trace = InternedString(traceback("/tmp/t.py", line, "fn", "x.add_(y)"));
    return n;
  };
  auto n = [](Node* x) { return Argument::node(x); };
  Node* add = call("aten.add.Tensor", {n(a0), n(a1)}, 1, 9);
  Node* add_1 = call("aten.add.Tensor", {n(a1), n(a1)}, 3, 10);
  Node* add_2 = call("aten.add.Tensor", {n(add_1), Argument::integer(2)}, 1, 11);
  Node* add_3 = call("aten.add.Tensor", {n(add_1), n(a1)}, 3, 12);
  call("aten.copy_.default", {n(a0), n(add)}, 1, 13);
  g.output(Argument::tuple({n(add_3), n(add_2)}));
  // The test's print_graph: `File.*\n` -> `\n`, then trailing spaces stripped.
  std::string text = std::regex_replace(printed(m, {}), std::regex("File.*\n"), "\n");
  EXPECT_EQ(strip_trailing_spaces(text), R"py(class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[2, 2]", arg1_1: "f32[2, 2]"):
        # Annotation: {'stream': 1}
        add: "f32[2, 2]" = torch.ops.aten.add.Tensor(arg0_1, arg1_1)

        # Annotation: {'stream': 3}
        add_1: "f32[2, 2]" = torch.ops.aten.add.Tensor(arg1_1, arg1_1)

        # Annotation: {'stream': 1}
        add_2: "f32[2, 2]" = torch.ops.aten.add.Tensor(add_1, 2)

        # Annotation: {'stream': 3}
        add_3: "f32[2, 2]" = torch.ops.aten.add.Tensor(add_1, arg1_1);  add_1 = arg1_1 = None

        # Annotation: {'stream': 1}
        copy_: "f32[2, 2]" = torch.ops.aten.copy_.default(arg0_1, add);  arg0_1 = add = copy_ = None
        return (add_3, add_2)
)py");
}

TEST(Printer, SpecExample8InlineTagsCurrentFormat) {
  GraphModule m;
  m.class_name = "GraphModule";
  Graph& g = m.graph();
  TensorMeta f = tensor(DType::Float32, {4, 2, 16, 32}, {1024, 512, 32, 1});
  Node* p1 = with_val(g.placeholder("primals_1"), f);
  Node* p2 = with_val(g.placeholder("primals_2"), f);
  Node* p3 = with_val(g.placeholder("primals_3"), f);
  auto n = [](Node* x) { return Argument::node(x); };
  Node* fa = g.call_function(
      "npu.npu_fusion_attention_v3.default",
      {n(p1), n(p2), n(p3), Argument::integer(2), Argument::string("BNSD"), Argument::none(),
       Argument::none(), Argument::none(), Argument::floating(0.17677669529663687)},
      {}, "npu_fusion_attention_v3_default");
  fa->meta.set_tensor_tuple({f, f});
  fa->meta.recompute = CheckpointPolicy::PreferRecompute;
  fa->meta.set_ac_graph_id(4);
  g.create_name("getitem");
  for (int i = 0; i < 3; ++i) g.create_name("getitem");
  Node* g4 = with_val(g.call_function("operator.getitem", {n(fa), Argument::integer(0)}), f);
  g4->meta.recompute = CheckpointPolicy::PreferRecompute;
  g4->meta.set_ac_graph_id(4);
  g4->meta.stack_trace = InternedString(
      traceback("/home/z50063656/Pass/src/pytorch/test/inductor/test_fused_attention.py", 319,
                "dot_prod_attention", ".matmul(value)"));
  g.create_name("getitem");
  g.create_name("getitem");
  Node* g7 = with_val(g.call_function("operator.getitem", {n(fa), Argument::integer(3)}),
                      tensor(DType::Float32, {0}, {1}));
  g.output(Argument::tuple({n(g4), n(p1), n(p2), n(p3), n(g7)}));
  PrintOptions o;
  o.tag_style = TagStyle::Inline2026;
  EXPECT_EQ(strip_trailing_spaces(printed(m, o)), R"py(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4, 2, 16, 32]", primals_2: "f32[4, 2, 16, 32]", primals_3: "f32[4, 2, 16, 32]"):
        # ac_graph_id: 4 - PREFER_RECOMPUTE No stacktrace found for following nodes
        npu_fusion_attention_v3_default = torch.ops.npu.npu_fusion_attention_v3.default(primals_1, primals_2, primals_3, 2, 'BNSD', None, None, None, 0.17677669529663687)

        # ac_graph_id: 4 - PREFER_RECOMPUTE File: /home/z50063656/Pass/src/pytorch/test/inductor/test_fused_attention.py:319 in dot_prod_attention, code: .matmul(value)
        getitem_4: "f32[4, 2, 16, 32]" = npu_fusion_attention_v3_default[0]

        # No stacktrace found for following nodes
        getitem_7: "f32[0]" = npu_fusion_attention_v3_default[3];  npu_fusion_attention_v3_default = None
        return (getitem_4, primals_1, primals_2, primals_3, getitem_7)
)py");
}

TEST(Printer, NodeTypesAnnotateWhereMetaDoesNot) {
  // torch.fx prints node.type (`scale: float = 0.5` in a traced signature) as ` : float`; the
  // verbose form replaces it with the meta annotation when there is one; 1.13 never did.
  constexpr std::string_view kGraph =
      R"({"schema": "fxgraph-json/1", "class_name": "Block", "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}},
    {"name": "scale", "op": "placeholder", "target": "scale", "type": "float", "args": [{"float": 0.5}], "kwargs": {}},
    {"name": "mul", "op": "call_function", "target": "operator.mul", "args": [{"node": "x"}, {"node": "scale"}], "kwargs": {}},
    {"name": "output", "op": "output", "target": "output", "args": [{"node": "mul"}], "kwargs": {}}]})";
  auto m = read_graph_json(kGraph, "block.json");
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  for (const PrintOptions& o : {PrintOptions::readable(), PrintOptions::torch_1_13()}) {
    std::string text = print_readable(*m, o).text;
    EXPECT_NE(text.find("    def forward(self, x, scale : float = 0.5):\n"), std::string::npos)
        << text;
  }
  EXPECT_NE(print_code(*m).text.find("def forward(self, x, scale : float = 0.5):"),
            std::string::npos);
}

TEST(Printer, NodeNamesGiveWayToBuiltinsAndEachOther) {
  // python_code names every node again in a fresh namespace: `torch` is taken by the module,
  // the renamed node's new name pushes the next node on, and the builtin `getattr` may keep its
  // own name once no node printed under it.
  constexpr std::string_view kGraph =
      R"({"schema": "fxgraph-json/1", "class_name": "Names", "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}},
    {"name": "torch", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "x"}], "kwargs": {}},
    {"name": "torch_1", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "torch"}], "kwargs": {}},
    {"name": "getattr", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "torch_1"}], "kwargs": {}},
    {"name": "getattr_1", "op": "call_function", "target": "builtins.getattr", "args": [{"node": "getattr"}, "0"], "kwargs": {}},
    {"name": "output", "op": "output", "target": "output", "args": [{"node": "getattr_1"}], "kwargs": {}}]})";
  auto m = read_graph_json(kGraph, "names.json");
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  EXPECT_EQ(print_code(*m).text, R"(


def forward(self, x):
    torch_1 = torch.ops.aten.neg.default(x);  x = None
    torch_2 = torch.ops.aten.neg.default(torch_1);  torch_1 = None
    getattr_1 = torch.ops.aten.neg.default(torch_2);  torch_2 = None
    getattr_2 = getattr(getattr_1, '0');  getattr_1 = None
    return getattr_2
    )");
}

}  // namespace
}  // namespace remat
