// PyTorch's partition read off its graphs: what a line frees, and the memory it leaves live.
#include "remat/report/derived_partition.h"

#include <gtest/gtest.h>

namespace remat::report {
namespace {

TEST(DerivedPartition, FreedNamesComeFromTheDeletionAtTheLinesEnd) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(freed_names("mul: \"f32[4]\" = x * 2;  x = y = None"), (V{"x", "y"}));
  EXPECT_EQ(freed_names("mul: \"f32[4]\" = x * 2"), V{});
  EXPECT_EQ(freed_names("add_ += 1;  x = add_;  add_ = None"), V{"add_"});
  EXPECT_EQ(freed_names("s = f(';  a = None');  b = None"), V{"b"});
  EXPECT_EQ(freed_names("s = f(x);  x = 1"), V{});
  // The last `;  ` counts only at the top level: inside a string or a call it frees nothing.
  EXPECT_EQ(freed_names("s = f(x);  y = g(\";  z = None\")"), V{});
  EXPECT_EQ(freed_names("s = f(a;  b = None)"), V{});
  EXPECT_EQ(freed_names("s = f(\";  q = None\");  c = None"), V{"c"});
}

TEST(DerivedPartition, TheTimelineCountsAnnotatedBytesAndDeletions) {
  std::string forward =
      "def forward(self, x: \"f32[4]\"):\n"        // 16 bytes
      "    a: \"f32[8]\" = x.sin()\n"              // + 32
      "    b: \"f32[4]\" = a.sum(0);  a = None\n"  // + 16, then - 32
      "    return (b, x)\n";
  std::string backward =
      "def forward(self, x: \"f32[4]\", t: \"f32[4]\"):\n"  // 32
      "    c: \"f32[4]\" = x * t;  x = t = None\n"          // + 16, then - 32
      "    return (c,)\n";
  std::vector<GraphLine> fw = graph_lines(forward), bw = graph_lines(backward);
  PartitionMarks marks;
  marks.saved["x"] = 16;
  marks.why["x"] = "an input of the backward graph";
  auto record = derived_record(marks, {forward, &fw}, {backward, &bw}, nullptr);
  ASSERT_TRUE(record.charts);
  const records::TimelineCurve& curve = record.charts->memory.at(0);
  std::vector<int64_t> live;
  for (const records::TimelineSample& s : curve.samples) live.push_back(s.live);
  EXPECT_EQ(live, (std::vector<int64_t>{16, 48, 64, 32, 48}));
  EXPECT_EQ(curve.peak_bytes, 64);
  EXPECT_EQ(curve.peak_node, "b");
  EXPECT_EQ(curve.forward_steps, 3u);
  EXPECT_EQ(record.peak_memory_bytes, 64);
  EXPECT_EQ(record.saved_bytes_total, 16);
  // x is the forward's input: the backward reads it anyway, no activation memory.
  ASSERT_EQ(record.saved_values.size(), 1u);
  EXPECT_TRUE(record.saved_values[0].input);
  EXPECT_EQ(record.charts->regions.nodes, 0u);  // no joint graph given
  // Written and read back, it is the same record.
  Expected<records::PartitionRecord> back = records::read_partition_record(record.json(), "r");
  ASSERT_TRUE(back) << back.errors().front().format();
  EXPECT_EQ(back->json(), record.json());
}

}  // namespace
}  // namespace remat::report
