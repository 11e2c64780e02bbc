#include "remat/passes/dead_code.h"

#include <gtest/gtest.h>

#include "remat/ir/verify.h"

namespace remat::passes {
namespace {

TEST(DeadCode, RemovesUnusedPureChainsKeepsImpure) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* unused_input = g.placeholder("unused");
  Node* a = g.call_function("aten.sin.default", {Argument::node(x)});
  g.call_function("aten.cos.default", {Argument::node(a)});  // dead, and makes sin dead
  Node* keep = g.call_function("aten.relu.default", {Argument::node(x)});
  g.call_function("aten.copy_.default", {Argument::node(x), Argument::node(keep)});  // in-place
  g.call_function("aten._assert_async.msg", {Argument::node(x), Argument::string("m")});
  g.output(Argument::tuple({Argument::node(keep)}));
  EXPECT_EQ(eliminate_dead_code(g), (std::vector<std::string>{"cos", "sin"}));
  EXPECT_EQ(g.find("sin"), nullptr);
  EXPECT_EQ(g.find("cos"), nullptr);
  EXPECT_NE(g.find("copy_"), nullptr);
  EXPECT_NE(g.find("_assert_async"), nullptr);
  EXPECT_NE(unused_input, nullptr);
  EXPECT_NE(g.find("unused"), nullptr) << "placeholders are never removed";
  EXPECT_TRUE(verify(g).empty());
}

TEST(DeadCode, CustomPurity) {
  Graph g;
  Node* x = g.placeholder("x");
  g.call_function("aten.rand.default", {Argument::list({Argument::integer(2)})});
  g.output(Argument::node(x));
  EXPECT_TRUE(eliminate_dead_code(g, [](const Node& n) { return is_impure(n, true); }).empty());
  EXPECT_EQ(eliminate_dead_code(g).size(), 1U);
}

}  // namespace
}  // namespace remat::passes
