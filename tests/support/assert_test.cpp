#include "remat/support/assert.h"

#include <gtest/gtest.h>

#include "remat/support/expected.h"

namespace remat {
namespace {

TEST(AssertDeathTest, AbortsWithContext) {
  EXPECT_DEATH(REMAT_ASSERT(1 + 1 == 3) << "context " << 42,
               "assertion `1 \\+ 1 == 3` failed: context 42");
}

TEST(AssertTest, PassingAssertDoesNothing) {
  int evaluated = 0;
  REMAT_ASSERT(++evaluated == 1) << "never printed";
  EXPECT_EQ(evaluated, 1);
}

TEST(ExpectedTest, HoldsValueOrErrors) {
  Expected<int> ok = 3;
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  Diagnostic d;
  d.file = "f.json";
  d.path = "nodes[1]";
  d.message = "bad";
  Expected<int> bad = d;
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.errors()[0].format(), "f.json: error: at nodes[1]: bad");
}

TEST(DiagnosticTest, FormatsLineColumnAndCaret) {
  Diagnostic d;
  d.file = "g.json";
  d.line = 3;
  d.col = 5;
  d.message = "unexpected '}'";
  d.source_line = "{ a }";
  EXPECT_EQ(d.format(), "g.json:3:5: error: unexpected '}'\n  { a }\n      ^");
}

}  // namespace
}  // namespace remat
