#include "remat/ir/meta.h"

#include <gtest/gtest.h>

namespace remat {
namespace {

TEST(Meta, CopiesShareColdKeysUntilOneChanges) {
  Meta a;
  a.mutable_extras().push_back({"nn_module_stack", "{\"L__self__\": [\"\", \"M\"]}"});
  a.set_desc(Argument::string("PlainAOTInput(idx=0)"));
  Meta b = a;
  EXPECT_TRUE(a == b);
  b.mutable_extras().push_back({"checkpoint_name", "\"x\""});
  EXPECT_EQ(a.extras().size(), 1U);
  EXPECT_EQ(b.extras().size(), 2U);
  b.set_desc(Argument::string("changed"));
  EXPECT_EQ(a.desc().as_text(), "PlainAOTInput(idx=0)");
  Meta c = a;
  c.set_sym_value(SymInt(3));
  c.clear_value();  // writes only the copy
  EXPECT_FALSE(a.sym_value().has_value());
  EXPECT_EQ(c.extras().size(), 1U);
  EXPECT_TRUE(Meta() == Meta());
}

}  // namespace
}  // namespace remat
