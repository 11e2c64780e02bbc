// The text tests' checker must fail where FileCheck would: each kind of check, held and broken.
#include "testing/file_check.h"

#include <gtest/gtest.h>

namespace remat::testing {
namespace {

std::vector<std::string> check(const std::string& checks, const std::string& output) {
  std::vector<std::string> bad;
  std::vector<CheckLine> lines = check_lines(checks, &bad);
  EXPECT_TRUE(bad.empty()) << bad.front();
  return file_check(lines, output, "t.txt");
}

const std::string kOutput = "alpha beta\ngamma\ndelta epsilon\n";

TEST(FileCheck, ChecksInOrder) {
  EXPECT_TRUE(check("# CHECK: alpha\n# CHECK: delta\n", kOutput).empty());
  EXPECT_TRUE(check("# CHECK: alpha\n# CHECK: beta\n", kOutput).empty()) << "same line, after";
  auto late = check("# CHECK: delta\n# CHECK: gamma\n", kOutput);
  ASSERT_EQ(late.size(), 1U);
  EXPECT_EQ(late[0], "t.txt:2: CHECK: 'gamma' not found after output line 3");
  EXPECT_FALSE(check("# CHECK: beta\n# CHECK: alpha\n", kOutput).empty());
}

TEST(FileCheck, NextAndSame) {
  EXPECT_TRUE(check("# CHECK: alpha\n# CHECK-NEXT: gamma\n", kOutput).empty());
  auto skipped = check("# CHECK: alpha\n# CHECK-NEXT: delta\n", kOutput);
  ASSERT_EQ(skipped.size(), 1U);
  EXPECT_EQ(skipped[0], "t.txt:2: CHECK-NEXT: 'delta' not on output line 2: gamma");
  EXPECT_TRUE(check("# CHECK: delta\n# CHECK-SAME: epsilon\n", kOutput).empty());
  EXPECT_FALSE(check("# CHECK: epsilon\n# CHECK-SAME: delta\n", kOutput).empty());
  EXPECT_FALSE(check("# CHECK-NEXT: alpha\n", kOutput).empty()) << "nothing before it";
}

TEST(FileCheck, NotHoldsBetweenMatches) {
  EXPECT_TRUE(check("# CHECK: alpha\n# CHECK-NOT: delta\n# CHECK: gamma\n", kOutput).empty());
  auto between = check("# CHECK: alpha\n# CHECK-NOT: gamma\n# CHECK: delta\n", kOutput);
  ASSERT_EQ(between.size(), 1U);
  EXPECT_EQ(between[0], "t.txt:2: CHECK-NOT: 'gamma' found on output line 2: gamma");
  EXPECT_FALSE(check("# CHECK: gamma\n# CHECK-NOT: epsilon\n", kOutput).empty()) << "to the end";
  EXPECT_TRUE(check("# CHECK-NOT: zeta\n", kOutput).empty());
  EXPECT_TRUE(check("# CHECK: alpha\n# CHECK-NOT: alpha\n", kOutput).empty())
      << "a NOT starts after the last match";
}

TEST(FileCheck, NamesLinesThatAreNoCheck) {
  std::vector<std::string> bad;
  std::vector<CheckLine> lines = check_lines("# CHECK: a\n# CHECKS: b\n# CHECK-NXT: c\n", &bad);
  EXPECT_EQ(lines.size(), 1U);
  ASSERT_EQ(bad.size(), 2U);
  EXPECT_EQ(bad[0], "line 2: not a check line: CHECKS: b");
}

}  // namespace
}  // namespace remat::testing
