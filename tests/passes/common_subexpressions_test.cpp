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
  // Each value is returned through a sin of its own: outputs themselves are never merged.
  std::vector<Argument> outs;
  for (Node* v : {a, b, c, d, n1, n2, r1, r2})
    outs.push_back(Argument::node(g.call_function("aten.sin.default", {Argument::node(v)})));
  g.output(Argument::tuple(std::move(outs)));
  auto random = [](const Node& n) { return n.target().view() == "aten.rand_like.default"; };
  std::vector<Merge> merged = eliminate_common_subexpressions(g, random);
  ASSERT_EQ(merged.size(), 1U);
  EXPECT_EQ(merged[0].removed, "add_1");
  EXPECT_EQ(merged[0].kept, "add");
  EXPECT_EQ(g.find("add_1"), nullptr);
  EXPECT_NE(g.find("neg_1"), nullptr);
  EXPECT_NE(g.find("rand_like_1"), nullptr) << "never_merge keeps random ops apart";
  // The first two sins now both read `add`, and both stay: each is a returned tensor.
  EXPECT_EQ(g.find("sin")->args()[0].as_node(), a);
  EXPECT_EQ(g.find("sin_1")->args()[0].as_node(), a);
  EXPECT_TRUE(verify(g).empty());
  // Without the predicate the random ops merge too.
  EXPECT_EQ(eliminate_common_subexpressions(g, [](const Node&) { return false; }).size(), 1U);
}

TEST(CommonSubexpressions, NeverMergesWhatSharesAStorageWithAnOutput) {
  // PyTorch's rule: two returned tensors computed alike are two tensors to the caller, and a view
  // of a returned tensor is not merged with its twin either (T5's encoder output and its views).
  Graph g;
  Node* x = g.placeholder("x");
  Node* s1 = g.call_function("aten.sin.default", {Argument::node(x)});
  Node* s2 = g.call_function("aten.sin.default", {Argument::node(x)});
  auto view = [&](Node* of) {
    return g.call_function(
        "aten.view.default",
        {Argument::node(of), Argument::list({Argument::integer(2), Argument::integer(2)})});
  };
  Node* v1 = view(s1);
  Node* v2 = view(s1);
  Node* c1 = g.call_function("aten.cos.default", {Argument::node(x)});
  Node* c2 = g.call_function("aten.cos.default", {Argument::node(x)});
  Node* sum = g.call_function(
      "aten.add.Tensor",
      {Argument::node(g.call_function("aten.mul.Tensor", {Argument::node(v1), Argument::node(v2)})),
       Argument::node(
           g.call_function("aten.mul.Tensor", {Argument::node(c1), Argument::node(c2)}))});
  g.output(Argument::tuple({Argument::node(s1), Argument::node(s2), Argument::node(sum)}));
  std::vector<Merge> merged = eliminate_common_subexpressions(g, [](const Node&) { return false; });
  ASSERT_EQ(merged.size(), 1U);
  EXPECT_EQ(merged[0].removed, "cos_1");
  EXPECT_NE(g.find("sin_1"), nullptr);
  EXPECT_NE(g.find("view_1"), nullptr);
  EXPECT_TRUE(verify(g).empty());
}

}  // namespace
}  // namespace remat::passes
