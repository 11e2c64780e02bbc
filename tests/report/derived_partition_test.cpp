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

TEST(DerivedPartition, RecomputedRandomOpsAreCreditedToTheJointsNode) {
  // Dropout under checkpoint, as PyTorch 2.13 logs it after functionalizing its random state:
  // the forward saves the state, the backward reruns the op with it under another name.
  std::string forward =
      "def forward(self, primals_1: \"f32[4]\"):\n"
      "    relu: \"f32[4]\" = torch.ops.aten.relu.default(primals_1)\n"
      "    run_and_save_rng_state = torch.ops.higher_order.run_and_save_rng_state("
      "torch.ops.aten.native_dropout.default, relu, 0.3, True)\n"
      "    getitem_2: \"u8[16]\" = run_and_save_rng_state[0]\n"
      "    getitem_3 = run_and_save_rng_state[1];  run_and_save_rng_state = None\n"
      "    return (getitem_3, relu, getitem_2)\n";
  std::string backward =
      "def forward(self, relu: \"f32[4]\", rng_state_output_0: \"u8[16]\", "
      "tangents_1: \"f32[4]\"):\n"
      "    run_with_rng_state = torch.ops.higher_order.run_with_rng_state(rng_state_output_0, "
      "torch.ops.aten.native_dropout.default, relu, 0.3, True);  rng_state_output_0 = None\n"
      "    getitem_1: \"b8[4]\" = run_with_rng_state[1];  run_with_rng_state = None\n"
      "    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, getitem_1)\n"
      // The joint's getitem_3 (another op's): the forward named its random result so too.
      "    getitem_3: \"f32[4]\" = torch.ops.aten.sin.default(mul)\n"
      "    return (getitem_3,)\n";
  std::string joint =
      "def forward(self, primals_1: \"f32[4]\", tangents_1: \"f32[4]\"):\n"
      "    relu: \"f32[4]\" = torch.ops.aten.relu.default(primals_1)\n"
      "    native_dropout = torch.ops.aten.native_dropout.default(relu, 0.3, True)\n"
      "    getitem: \"f32[4]\" = native_dropout[0]\n"
      "    getitem_1: \"b8[4]\" = native_dropout[1];  native_dropout = None\n"
      "    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, getitem_1)\n"
      "    getitem_3: \"f32[4]\" = torch.ops.aten.sin.default(mul)\n"
      "    return (getitem, getitem_3)\n";
  std::vector<GraphLine> fw = graph_lines(forward), bw = graph_lines(backward),
                         jl = graph_lines(joint);
  PartitionMarks marks = marks_from_graphs(fw, bw);
  EXPECT_TRUE(marks.saved.contains("rng_state_output_0"));
  EXPECT_FALSE(marks.recomputed.contains("native_dropout"));
  EXPECT_TRUE(marks.recomputed.contains("getitem_3"));  // by name only
  drop_name_collisions(marks, {forward, &fw}, {backward, &bw});
  EXPECT_FALSE(marks.recomputed.contains("getitem_3"));  // a random op's result, and a sin
  credit_random_recomputation(marks, {forward, &fw}, {backward, &bw}, {joint, &jl});
  EXPECT_EQ(marks.saved.count("rng_state_output_0"), 0u);  // not an activation chosen
  EXPECT_TRUE(marks.saved.contains("relu"));
  EXPECT_TRUE(marks.recomputed.contains("native_dropout"));
  EXPECT_NE(marks.why.at("native_dropout").find("run_with_rng_state"), std::string::npos);
  // Without the joint graph the state still goes; nothing is credited.
  PartitionMarks alone = marks_from_graphs(fw, bw);
  credit_random_recomputation(alone, {}, {backward, &bw}, {});
  EXPECT_EQ(alone.saved.count("rng_state_output_0"), 0u);
  EXPECT_FALSE(alone.recomputed.contains("native_dropout"));
}

TEST(DerivedPartition, ANameBothGraphsMakeWithOtherOpsIsNoRecomputation) {
  // The second dropout under checkpoint is run_and_save_rng_state_1; the names the forward gives
  // its state and result (getitem_4, getitem_5) are the joint's names of two backward nodes
  // (BERT's encoder-decoder: 70 such names read as recomputations before). A name both make
  // with the same op stays: sin, and getitem_6, the dropout's result (run_and_save_rng_state in
  // the forward, run_with_rng_state in the backward).
  std::string forward =
      "def forward(self, primals_1: \"f32[4]\"):\n"
      "    run_and_save_rng_state = torch.ops.higher_order.run_and_save_rng_state("
      "torch.ops.aten.native_dropout.default, primals_1, 0.3, True)\n"
      "    getitem_2: \"u8[16]\" = run_and_save_rng_state[0]\n"
      "    getitem_3 = run_and_save_rng_state[1];  run_and_save_rng_state = None\n"
      "    getitem: \"f32[4]\" = getitem_3[0];  getitem_3 = None\n"
      "    run_and_save_rng_state_1 = torch.ops.higher_order.run_and_save_rng_state("
      "torch.ops.aten.native_dropout.default, getitem, 0.3, True)\n"
      "    getitem_4: \"u8[16]\" = run_and_save_rng_state_1[0]\n"
      "    getitem_5 = run_and_save_rng_state_1[1];  run_and_save_rng_state_1 = None\n"
      "    getitem_6: \"f32[4]\" = getitem_5[0];  getitem_5 = None\n"
      "    sin: \"f32[4]\" = torch.ops.aten.sin.default(getitem_6)\n"
      "    return (getitem_6, getitem_2, getitem_4, sin)\n";
  std::string backward =
      "def forward(self, tangents_1: \"f32[4]\"):\n"
      "    getitem_4: \"f32[4]\" = torch.ops.aten.sin.default(tangents_1)\n"
      "    getitem_5: \"f32[4]\" = torch.ops.aten.cos.default(getitem_4)\n"
      "    sin: \"f32[4]\" = torch.ops.aten.sin.default(getitem_5)\n"
      "    run_with_rng_state = torch.ops.higher_order.run_with_rng_state(tangents_1, "
      "torch.ops.aten.native_dropout.default, sin, 0.3, True)\n"
      "    getitem_2: \"b8[4]\" = run_with_rng_state[1]\n"
      "    getitem_6: \"f32[4]\" = run_with_rng_state[0];  run_with_rng_state = None\n"
      "    return (getitem_5, getitem_6, getitem_2)\n";
  std::vector<GraphLine> fw = graph_lines(forward), bw = graph_lines(backward);
  PartitionMarks marks = marks_from_graphs(fw, bw);
  ASSERT_TRUE(marks.recomputed.contains("getitem_4"));  // by name only
  ASSERT_TRUE(marks.recomputed.contains("getitem_5"));
  ASSERT_TRUE(marks.recomputed.contains("sin"));
  drop_name_collisions(marks, {forward, &fw}, {backward, &bw});
  EXPECT_FALSE(marks.recomputed.contains("getitem_4"));
  EXPECT_FALSE(marks.recomputed.contains("getitem_5"));
  EXPECT_FALSE(marks.why.contains("getitem_4"));
  EXPECT_TRUE(marks.recomputed.contains("sin"));  // aten.sin in both
  EXPECT_TRUE(marks.recomputed.contains("getitem_6"));
  // The forward's getitem_2 is the first dropout's random state, the backward's a getitem of a
  // random op too: only the state's name tells them apart.
  EXPECT_TRUE(marks.recomputed.contains("getitem_2"));
  credit_random_recomputation(marks, {forward, &fw}, {backward, &bw}, {});
  EXPECT_FALSE(marks.recomputed.contains("getitem_2"));
  EXPECT_TRUE(marks.recomputed.contains("getitem_6"));
}

TEST(DerivedPartition, AConstantBothGraphsReadIsNoRecomputation) {
  // DeBERTa's lifted constants: each graph reads them with a get_attr statement of its own.
  std::string forward =
      "def forward(self, primals_1: \"f32[4]\"):\n"
      "    _tensor_constant0: \"f32[4]\" = self._tensor_constant0\n"
      "    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(primals_1, _tensor_constant0)\n"
      "    return (mul, primals_1)\n";
  std::string backward =
      "def forward(self, primals_1: \"f32[4]\", tangents_1: \"f32[4]\"):\n"
      "    _tensor_constant0: \"f32[4]\" = self._tensor_constant0\n"
      "    mul_1: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, _tensor_constant0)\n"
      "    return (mul_1,)\n";
  std::vector<GraphLine> fw = graph_lines(forward), bw = graph_lines(backward);
  PartitionMarks marks = marks_from_graphs(fw, bw);
  EXPECT_TRUE(marks.recomputed.contains("_tensor_constant0"));  // by name only
  drop_constant_reads(marks, {backward, &bw});
  EXPECT_TRUE(marks.recomputed.empty());
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

TEST(DerivedPartition, ASavedViewOfAnInputIsAnInput) {
  // A loss's labels (encoder-decoder's [8/0]): the forward saves view_1, a view of primals_2,
  // which holds no storage of its own; remat's records count it as an input (storage root a
  // placeholder), and so must PyTorch's read off its graphs, or remat diff shows a spurious -1.
  std::string forward =
      "def forward(self, primals_1: \"f32[4]\", primals_2: \"i64[2, 8]\"):\n"
      "    view_1: \"i64[16]\" = torch.ops.aten.view.default(primals_2, [-1]);  primals_2 = None\n"
      "    sin: \"f32[4]\" = torch.ops.aten.sin.default(primals_1);  primals_1 = None\n"
      "    view_2: \"f32[2, 2]\" = torch.ops.aten.view.default(sin, [2, 2])\n"
      "    return (sin, view_1, sin, view_2)\n";
  std::string backward =
      "def forward(self, view_1: \"i64[16]\", sin: \"f32[4]\", view_2: \"f32[2, 2]\", "
      "tangents_1: \"f32[4]\"):\n"
      "    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, sin);  sin = None\n"
      "    return (mul, None)\n";
  std::vector<GraphLine> fw = graph_lines(forward), bw = graph_lines(backward);
  PartitionMarks marks;
  marks.saved["view_1"] = 128;
  marks.saved["sin"] = 16;
  marks.saved["view_2"] = 16;
  auto record = derived_record(marks, {forward, &fw}, {backward, &bw}, nullptr);
  ASSERT_EQ(record.saved_values.size(), 3u);
  for (const records::SavedValue& v : record.saved_values)
    EXPECT_EQ(v.input, v.name == "view_1") << v.name;
  // sin's storage once, though two saved values hold it; the input's view holds none.
  EXPECT_EQ(record.activation_bytes, 16);
}

}  // namespace
}  // namespace remat::report
