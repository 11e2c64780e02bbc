#include "remat/support/enum_names.h"

#include <gtest/gtest.h>

namespace remat {
namespace {

enum class Color : uint8_t { Unknown, Red, Green };
constexpr EnumNames<Color, 3> kColors({"", "red", "green"});

TEST(EnumNames, NamesByValueAndParsesEveryNamedValue) {
  static_assert(kColors.name(Color::Green) == "green");  // usable at compile time
  EXPECT_EQ(kColors.name(Color::Red), "red");
  EXPECT_EQ(kColors.name(Color::Unknown), "");
  EXPECT_EQ(kColors.parse("green"), Color::Green);
  EXPECT_EQ(kColors.parse("red"), Color::Red);
  EXPECT_EQ(kColors.parse(""), std::nullopt) << "an empty name is never parsed";
  EXPECT_EQ(kColors.parse("Red"), std::nullopt);
  for (Color c : {Color::Red, Color::Green}) EXPECT_EQ(kColors.parse(kColors.name(c)), c);
}

}  // namespace
}  // namespace remat
