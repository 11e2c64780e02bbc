// parse_traceback: the frames of node.meta["stack_trace"].
#include <gtest/gtest.h>

#include "remat/fxtext/traceback.h"

namespace remat::fxtext {
namespace {

TEST(Traceback, FramesOutermostFirstWithTheirCode) {
  std::string trace =
      "  File \"/m.py\", line 7, in forward\n    y = layer(x)\n"
      "  not a frame\n"
      "  File \"/l.py\", line 12, in gn\n    return torch.sigmoid(x)\n"
      "  File \"/last.py\", line 3, in f\n";  // no code line after it: not a frame
  std::vector<TracebackFrame> frames = parse_traceback(trace);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].file, "/m.py");
  EXPECT_EQ(frames[0].line, "7");
  EXPECT_EQ(frames[0].function, "forward");
  EXPECT_EQ(frames[0].code, "y = layer(x)");
  EXPECT_EQ(frames[1].code, "return torch.sigmoid(x)");
  EXPECT_TRUE(parse_traceback("  File \"a.py\", line x, in f\n    c\n").empty());
  EXPECT_TRUE(parse_traceback("").empty());
  std::optional<TracebackFrame> innermost = innermost_frame(trace);
  ASSERT_TRUE(innermost.has_value());
  EXPECT_EQ(innermost->file, "/l.py");
  EXPECT_EQ(innermost->code, "return torch.sigmoid(x)");
  EXPECT_FALSE(innermost_frame("").has_value());
}

}  // namespace
}  // namespace remat::fxtext
