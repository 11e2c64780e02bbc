#include "remat/ir/layout.h"

#include <gtest/gtest.h>

namespace remat {
namespace {

TEST(Layout, NamesParse) {
  EXPECT_EQ(parse_layout("torch.strided"), Layout::Strided);
  EXPECT_EQ(layout_name(Layout::Strided), "torch.strided");
  EXPECT_EQ(parse_memory_format("torch.channels_last"), MemoryFormat::ChannelsLast);
  EXPECT_FALSE(parse_memory_format(""));
  EXPECT_FALSE(parse_layout("strided"));
}

}  // namespace
}  // namespace remat
