// The tracer: recorded ops and their metadata, stack traces, scopes, errors.
#include <gtest/gtest.h>

#include "remat/ir/graph.h"
#include "remat/ir/verify.h"
#include "remat/trace/checkpoint.h"
#include "remat/trace/source_frames.h"
#include "remat/trace/tracer.h"

namespace remat::trace {
namespace {

std::vector<std::string> targets(const GraphModule& m) {
  std::vector<std::string> out;
  for (const Node* n : m.graph().nodes()) {
    if (n->op() == OpKind::CallFunction) out.emplace_back(n->target().view());
  }
  return out;
}

std::vector<int64_t> strides_of(const Node* n) {
  std::vector<int64_t> out;
  auto strides = n->meta.tensor()->strides();
  for (SymInt s : *strides) out.push_back(s.value());
  return out;
}

TEST(Tracer, RecordsOpsWithValuesAndNames) {
  Tracer tracer;
  Tensor x = tracer.input("x", {4, 4});
  Tensor y = x.t();
  Tensor s = sin(y);  // one op per statement: C++ leaves the order of operands open
  Tensor z = s + y * 2.0;
  tracer.output({z});
  GraphModule m = tracer.finish();
  EXPECT_TRUE(verify(m).empty());
  EXPECT_EQ(targets(m), (std::vector<std::string>{"aten.t.default", "aten.sin.default",
                                                  "aten.mul.Tensor", "aten.add.Tensor"}));
  const Node* t = m.graph().find("t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(strides_of(t), (std::vector<int64_t>{1, 4}));  // a view keeps its strides
  EXPECT_EQ(strides_of(m.graph().find("sin")), (std::vector<int64_t>{1, 4}));
  const Node* mul = m.graph().find("mul");
  ASSERT_EQ(mul->args().size(), 2u);
  EXPECT_EQ(mul->args()[1], Argument::floating(2.0));  // a Python-style wrapped number
  EXPECT_EQ(m.graph().find("x")->meta.desc(), Argument::string("PlainAOTInput(idx=0)"));
}

TEST(Tracer, StackTracesNameTheCallersLine) {
  Tracer tracer;
  Tensor x = tracer.input("x", {3});
  int line = __LINE__ + 1;
  Tensor y = relu(x);
  int plus_line = __LINE__ + 1;
  Tensor z = y + y;
  tracer.output({z});
  GraphModule m = tracer.finish();
  std::string relu_trace(m.graph().find("relu")->meta.stack_trace.view());
  EXPECT_EQ(relu_trace, std::string("  File \"") + __FILE__ + "\", line " + std::to_string(line) +
                            ", in TestBody\n    Tensor y = relu(x);\n");
  std::string add_trace(m.graph().find("add")->meta.stack_trace.view());
  EXPECT_NE(add_trace.find("line " + std::to_string(plus_line) + ","), std::string::npos)
      << add_trace;
}

TEST(Tracer, ShortFunctionNamesReadLikePython) {
  EXPECT_EQ(short_function_name(
                "remat::trace::Tensor remat::models::{anonymous}::gn(remat::trace::Tensor, "
                "remat::trace::Tensor)"),
            "gn");
  EXPECT_EQ(short_function_name("int main()"), "main");
  EXPECT_EQ(short_function_name("void ns::Foo<int>::bar(std::vector<int>)"), "bar");
  EXPECT_EQ(short_function_name("auto f()::<lambda(int)>"), "<lambda>");
}

TEST(Tracer, MultiOutputOpsGetAGetitemPerElement) {
  Tracer tracer;
  Tensor x = tracer.input("x", {2, 8});
  Tensor w = tracer.parameter("w", {8});
  Tensor out = layer_norm(x, {8}, w, w);
  tracer.output({out});
  GraphModule m = tracer.finish();
  EXPECT_EQ(targets(m),
            (std::vector<std::string>{"aten.native_layer_norm.default", "operator.getitem",
                                      "operator.getitem", "operator.getitem"}));
  const Node* ln = m.graph().find("native_layer_norm");
  ASSERT_NE(ln->meta.tensor_tuple(), nullptr);
  EXPECT_EQ(ln->meta.tensor_tuple()->size(), 3u);
  EXPECT_EQ(m.graph().find("getitem_1")->meta.tensor()->sizes().size(), 2u);  // mean: [2, 1]
}

TEST(Tracer, ModuleScopesQualifyParametersAndRecordTheStack) {
  Tracer tracer;
  Tensor w;
  {
    ModuleScope outer("encoder", "Encoder");
    ModuleScope inner("layers.0", "Layer");
    w = tracer.parameter("weight", {4, 4});
  }
  Tensor x = tracer.input("x", {2, 4});
  Tensor y;
  {
    ModuleScope scope("encoder", "Encoder");
    y = mm(x, w);
  }
  tracer.output({y});
  GraphModule m = tracer.finish();
  const Node* p = m.graph().find("encoder_layers_0_weight");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->meta.desc(), Argument::string("ParamAOTInput(target='encoder.layers.0.weight')"));
  EXPECT_EQ(p->meta.tensor()->requires_grad, true);
  const Node* mmn = m.graph().find("mm");
  ASSERT_EQ(mmn->meta.extras().size(), 1u);
  EXPECT_EQ(mmn->meta.extras()[0].key, "nn_module_stack");
  EXPECT_EQ(mmn->meta.extras()[0].json, R"({"encoder": ["encoder", "Encoder"]})");
  // The scope's frame comes first, then the op's.
  std::string trace(mmn->meta.stack_trace.view());
  EXPECT_EQ(std::count(trace.begin(), trace.end(), '\n'), 4) << trace;
}

TEST(Tracer, MatmulDecomposesAsAten) {
  Tracer tracer;
  Tensor a = tracer.input("a", {2, 3, 4, 5});
  Tensor b = tracer.input("b", {5, 6});
  Tensor c = tracer.input("c", {3, 6, 2});
  Tensor folded = matmul(a, b);        // batch folded into one mm
  Tensor batched = matmul(folded, c);  // broadcast batch: expand + reshape + bmm
  tracer.output({batched});
  GraphModule m = tracer.finish();
  EXPECT_EQ(targets(m), (std::vector<std::string>{
                            "aten.view.default", "aten.mm.default", "aten._unsafe_view.default",
                            "aten.expand.default", "aten.view.default", "aten.expand.default",
                            "aten.clone.default", "aten._unsafe_view.default", "aten.bmm.default",
                            "aten._unsafe_view.default"}));
  EXPECT_EQ(m.graph().find("_unsafe_view_2")->meta.tensor()->sizes().size(), 4u);
}

TEST(Tracer, LinearIsTAndAddmm) {
  Tracer tracer;
  Tensor w = tracer.parameter("w", {8, 4});
  Tensor bias = tracer.parameter("b", {8});
  Tensor x2 = tracer.input("x2", {3, 4});
  Tensor x3 = tracer.input("x3", {2, 3, 4});
  tracer.output({linear(x2, w, bias), linear(x3, w, bias)});
  GraphModule m = tracer.finish();
  EXPECT_EQ(targets(m), (std::vector<std::string>{"aten.t.default", "aten.addmm.default",
                                                  "aten.t.default", "aten.view.default",
                                                  "aten.addmm.default", "aten.view.default"}));
}

TEST(Tracer, DefaultArgumentsAreLeftOutAsMakeFxRecordsThem) {
  Tracer tracer;
  Tensor x = tracer.input("x", {4, 4});
  Tensor s = x.slice(0, 0, std::nullopt, 1);  // step=1 is the default
  tracer.output({s});
  GraphModule m = tracer.finish();
  const Node* slice = m.graph().find("slice_1");  // `slice` is a Python builtin: FX adds _1
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->args().size(), 3u);
}

TEST(Tracer, BadCallsThrowAtTheUsersLine) {
  Tracer tracer;
  Tensor a = tracer.input("a", {2, 3});
  Tensor b = tracer.input("b", {4, 5});
  int line = __LINE__ + 2;
  try {
    mm(a, b);
    FAIL() << "mm of 2x3 and 4x5 must fail";
  } catch (const TraceError& e) {
    std::string msg = e.what();
    EXPECT_NE(
        msg.find(std::string(__FILE__) + ":" + std::to_string(line) +
                 ": aten.mm.default: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
        std::string::npos)
        << msg;
  }
}

TEST(Tracer, OnlyOneTracerAtATime) {
  Tracer tracer;
  EXPECT_THROW(Tracer second, std::logic_error);
  EXPECT_EQ(&Tracer::current(), &tracer);
}

}  // namespace
}  // namespace remat::trace
