// What a statement of FX graph text calls, read off its text.
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "remat/fxtext/statement_call.h"

namespace remat::fxtext {
namespace {

TEST(StatementCall, TargetsAndFirstArguments) {
  StatementCall v = statement_call(
      "        view_1: \"f32[16, 32]\" = torch.ops.aten.view.default(add, [16, 32]);  add = None");
  EXPECT_EQ(v.target, "aten.view.default");
  EXPECT_EQ(v.first, "add");
  StatementCall g = statement_call("    getitem_2: \"f32[2, 8, 1]\" = native_layer_norm[2]");
  EXPECT_EQ(g.target, "operator.getitem");
  EXPECT_EQ(g.first, "native_layer_norm");
  StatementCall o = statement_call("    getitem = operator.getitem(split, 0);  split = None");
  EXPECT_EQ(o.target, "operator.getitem");
  EXPECT_EQ(o.first, "split");
  // An annotation holding ` = `-like text and quotes does not fool it.
  StatementCall q =
      statement_call("    mul: \"f32[4][1]cpu\" = torch.ops.aten.mul.Tensor(x, y)  # note: a = b");
  EXPECT_EQ(q.target, "aten.mul.Tensor");
  EXPECT_EQ(q.first, "x");
  // A number, a list, or no call: no first name.
  EXPECT_EQ(statement_call("    full = torch.ops.aten.full.default([2], 0.0)").first, "");
  EXPECT_EQ(statement_call("    ones = torch.ops.aten.ones.default(4)").first, "");
  EXPECT_EQ(statement_call("    return (a, b)").target, "");
  EXPECT_EQ(statement_call("    x = y").target, "");
}

TEST(StatementCall, WhatEndsTheRightHandSideBeforeItsFirstBracketIsHeeded) {
  // The call is read up to its first bracket; a `;`, a comment or a string before that bracket
  // ends or hides it, as in the whole right-hand side.
  StatementCall mm =
      statement_call("    mm: \"f32[4]\" = torch.ops.aten.mm.default(a, b);  a = b = None");
  EXPECT_EQ(mm.target, "aten.mm.default");
  EXPECT_EQ(mm.first, "a");
  EXPECT_EQ(statement_call("    x = a;  b = c[0]").target, "");
  EXPECT_EQ(statement_call("    x = y  # see f(z)").target, "");
  EXPECT_EQ(statement_call("    x = \"s(\" + f(y)").target, "");
  EXPECT_EQ(statement_call("    x = f (y)").target, "");
  EXPECT_EQ(statement_call("    x: \"f32[4]\"; y = f(z)").target, "");  // no assignment first
}

TEST(StatementCall, OperandsAreTheRightHandSidesNamesOutsideStringsPathsAndKeywords) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(statement_operands("    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, cos);  "
                               "tangents_1 = cos = None"),
            (V{"tangents_1", "cos"}));
  EXPECT_EQ(statement_operands("    x = f(a, dim=1, keepdim=b)"), (V{"f", "a", "b"}));
  EXPECT_EQ(statement_operands("    x = g(\"a b\", c)  # d e"), (V{"g", "c"}));
  EXPECT_EQ(statement_operands("    x = a == b"), (V{"a", "b"}));
  EXPECT_EQ(statement_operands("    x = y[0];  z = w"), V{"y"});
  EXPECT_EQ(statement_operands("    return (a, b)"), V{});
}

TEST(StatementCall, StorageSharingOps) {
  for (const char* t : {"aten.view.default", "aten.t.default", "aten.expand.default",
                        "aten.detach.default", "aten._unsafe_view.default"})
    EXPECT_TRUE(shares_input_storage(t)) << t;
  for (const char* t : {"aten.mm.default", "aten.clone.default", "aten.transpose.int", ""})
    EXPECT_FALSE(shares_input_storage(t)) << t;
}

}  // namespace
}  // namespace remat::fxtext
