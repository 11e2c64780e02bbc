#include "remat/support/interned_string.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace remat {
namespace {

TEST(InternedString, EqualTextGivesEqualHandle) {
  InternedString a("aten.mm.default");
  std::string other = std::string("aten.mm") + ".default";
  InternedString b(other);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_FALSE(a == InternedString("aten.mm.out"));
}

TEST(InternedString, NullIsNotEmpty) {
  InternedString null;
  InternedString empty("");
  EXPECT_TRUE(null.is_null());
  EXPECT_FALSE(empty.is_null());
  EXPECT_EQ(null.str(), "");
  EXPECT_FALSE(null == empty);
}

TEST(InternedString, ThreadSafe) {
  std::vector<std::thread> threads;
  std::vector<const std::string*> seen(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < 1000; ++i) InternedString("k" + std::to_string(i));
      seen[static_cast<size_t>(t)] = &InternedString("k500").str();
    });
  for (auto& th : threads) th.join();
  for (auto* p : seen) EXPECT_EQ(p, seen[0]);
}

}  // namespace
}  // namespace remat
