#include "remat/ir/verify.h"

#include <gtest/gtest.h>

namespace remat {
namespace {

bool mentions(const Diagnostics& problems, const std::string& text) {
  for (const Diagnostic& d : problems)
    if ((d.path + ": " + d.message).find(text) != std::string::npos) return true;
  return false;
}

TEST(Verify, ReportsUseBeforeDefinition) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = g.call_function("aten.sin.default", {Argument::node(x)});
  Node* b = g.call_function("aten.cos.default", {Argument::node(a)});
  g.output(Argument::node(b));
  g.move_before(b, a);  // cos now reads sin before sin is computed
  Diagnostics problems = verify(g);
  EXPECT_TRUE(mentions(problems, "node 'cos': uses 'sin' before its definition"))
      << format_all(problems);
}

TEST(Verify, ReportsMissingAndExtraOutputs) {
  Graph none;
  none.placeholder("x");
  EXPECT_TRUE(mentions(verify(none), "has 0 output nodes"));
  Graph two;
  Node* x = two.placeholder("x");
  two.output(Argument::node(x));
  two.output(Argument::node(x));
  EXPECT_TRUE(mentions(verify(two), "has 2 output nodes"));
}

TEST(Verify, ReportsEveryProblemNotJustTheFirst) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = g.call_function("aten.sin.default", {Argument::node(x)});
  Node* b = g.call_function("aten.cos.default", {Argument::node(a)});
  a->meta.set_tensor(TensorMeta(DType::Unknown, {}));
  g.move_before(b, a);
  Diagnostics problems = verify(g);
  EXPECT_TRUE(mentions(problems, "before its definition"));
  EXPECT_TRUE(mentions(problems, "without a dtype"));
  EXPECT_TRUE(mentions(problems, "0 output nodes"));
}

TEST(Verify, ModuleCountsAndSavedValues) {
  GraphModule m;
  Node* x = m.graph().placeholder("x");
  m.graph().output(Argument::tuple({Argument::node(x)}));
  m.num_fwd_outputs = 3;
  m.saved_values = std::vector<std::string>{"nope"};
  Diagnostics problems = verify(m);
  EXPECT_TRUE(mentions(problems, "num_fwd_outputs: 3 is out of range"));
  EXPECT_TRUE(mentions(problems, "names no node: 'nope'"));
}

}  // namespace
}  // namespace remat
