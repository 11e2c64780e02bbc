#include "remat/support/json_text.h"

#include <gtest/gtest.h>

#include <random>

namespace remat::json {
namespace {

TEST(JsonText, UnquoteReadsEveryEscape) {
  EXPECT_EQ(unquote(R"("a\nb\t\"c\"\\ \/ \b\f\r")"), std::string("a\nb\t\"c\"\\ / \b\f\r"));
  EXPECT_EQ(unquote(R"("\u00e9\u4e2d")"), "\u00e9\u4e2d");
  EXPECT_EQ(unquote(R"("\ud83d\ude00")"), "\U0001F600");  // a surrogate pair
  EXPECT_EQ(unquote(R"("")"), "");
}

TEST(JsonText, UnquoteRejectsWhatIsNotOneString) {
  for (const char* bad : {"", "\"", "abc", "\"abc", "abc\"", R"("a"b")", R"("\")", R"("\x")",
                          R"("\u12")", R"("\ud83d")", R"("\ude00")", R"("\ud83dx")", "\"a\nb\""}) {
    EXPECT_FALSE(unquote(bad).has_value()) << bad;
  }
}

TEST(JsonText, QuotedThenUnquotedIsTheSameBytes) {
  std::mt19937 rng(20261203);
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 40, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    std::optional<std::string> back = unquote(json::quoted(s));
    ASSERT_TRUE(back.has_value()) << json::quoted(s);
    EXPECT_EQ(*back, s);
  }
}

}  // namespace
}  // namespace remat::json
