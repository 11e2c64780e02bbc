// What a statement of FX graph text calls, read off its text.
#include <gtest/gtest.h>

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

TEST(StatementCall, StorageSharingOps) {
  for (const char* t : {"aten.view.default", "aten.t.default", "aten.expand.default",
                        "aten.detach.default", "aten._unsafe_view.default"})
    EXPECT_TRUE(shares_input_storage(t)) << t;
  for (const char* t : {"aten.mm.default", "aten.clone.default", "aten.transpose.int", ""})
    EXPECT_FALSE(shares_input_storage(t)) << t;
}

}  // namespace
}  // namespace remat::fxtext
