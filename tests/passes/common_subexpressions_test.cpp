#include "remat/passes/common_subexpressions.h"

#include <gtest/gtest.h>

#include "remat/ir/verify.h"

namespace remat::passes {
namespace {

TEST(CommonSubexpressions, MergesSameTargetAndArgumentsKeepingTheFirst) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = g.call_function("aten.add.Tensor", {Argument::node(x), Argument::integer(1)});
  Node* b = g.call_function("aten.add.Tensor", {Argument::node(x), Argument::integer(1)});
  Node* c =
      g.call_function("aten.add.Tensor", {Argument::node(x), Argument::integer(2)});  // other args
  Node* d = g.call_function("aten.mul.Tensor",
                            {Argument::node(x), Argument::integer(1)});  // other target
  Node* n1 =
      g.call_function("aten.neg.default", {Argument::node(x), Argument::none()});  // None: never
  Node* n2 = g.call_function("aten.neg.default", {Argument::node(x), Argument::none()});
  Node* r1 = g.call_function("aten.rand_like.default", {Argument::node(x)});
  Node* r2 = g.call_function("aten.rand_like.default", {Argument::node(x)});
  g.output(Argument::tuple({Argument::node(a), Argument::node(b), Argument::node(c),
                            Argument::node(d), Argument::node(n1), Argument::node(n2),
                            Argument::node(r1), Argument::node(r2)}));
  auto random = [](const Node& n) { return n.target().view() == "aten.rand_like.default"; };
  std::vector<Merge> merged = eliminate_common_subexpressions(g, random);
  ASSERT_EQ(merged.size(), 1U);
  EXPECT_EQ(merged[0].removed, "add_1");
  EXPECT_EQ(merged[0].kept, "add");
  EXPECT_EQ(g.find("add_1"), nullptr);
  EXPECT_NE(g.find("neg_1"), nullptr);
  EXPECT_NE(g.find("rand_like_1"), nullptr) << "never_merge keeps random ops apart";
  // The output now reads `add` twice.
  const Argument& out = g.output_node()->args()[0];
  EXPECT_EQ(out.elements()[0].as_node(), a);
  EXPECT_EQ(out.elements()[1].as_node(), a);
  EXPECT_TRUE(verify(g).empty());
  // Without the predicate the random ops merge too.
  EXPECT_EQ(eliminate_common_subexpressions(g, [](const Node&) { return false; }).size(), 1U);
}

}  // namespace
}  // namespace remat::passes
