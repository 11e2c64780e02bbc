// The joint graph as AOTAutograd builds it: the seed's example op for op, the detach pattern,
// broadcast reductions, accumulation, engine order, descriptors, errors.
#include <gtest/gtest.h>

#include "remat/autodiff/joint_graph.h"
#include "remat/ir/graph.h"
#include "remat/ir/verify.h"
#include "remat/models/model_zoo.h"
#include "remat/print/printer.h"
#include "remat/trace/checkpoint.h"
#include "testing/golden.h"
#include "testing/traced_joint.h"

namespace remat::autodiff {
namespace {

using namespace remat::trace;

std::vector<std::string> op_names(const GraphModule& m) {
  std::vector<std::string> out;
  for (const Node* n : m.graph().nodes()) {
    if (n->op() == OpKind::CallFunction) out.push_back(n->name());
  }
  return out;
}

std::vector<std::string> output_names(const GraphModule& m) {
  std::vector<std::string> out;
  for (const Argument& a : m.outputs()) out.push_back(a.is_node() ? a.as_node()->name() : "None");
  return out;
}

TEST(JointGraph, TheSeedModelGivesTheSeedsJointGraph) {
  auto fwd = models::find_model("seed")->trace({});
  ASSERT_TRUE(fwd.ok());
  auto joint = build_joint_graph(*fwd);
  ASSERT_TRUE(joint.ok()) << format_all(joint.errors());
  EXPECT_EQ(op_names(*joint), (std::vector<std::string>{"sin", "mm", "sigmoid", "detach",
                                                        "detach_1", "sigmoid_backward", "t", "mm_1",
                                                        "t_1", "mm_2", "cos", "mul"}));
  EXPECT_EQ(output_names(*joint), (std::vector<std::string>{"sigmoid", "mul", "mm_1"}));
  const Graph& g = joint->graph();
  for (const char* tagged : {"mm", "sigmoid", "detach"}) {
    EXPECT_EQ(g.find(tagged)->meta.recompute, CheckpointPolicy::PreferRecompute) << tagged;
    EXPECT_EQ(g.find(tagged)->meta.ac_graph_id(), 1) << tagged;
  }
  for (const char* untagged : {"sin", "detach_1", "sigmoid_backward", "mul"})
    EXPECT_FALSE(g.find(untagged)->meta.recompute) << untagged;
  EXPECT_EQ(g.find("sin")->meta.partitioner_tag, PartitionerTag::IsForward);
  EXPECT_EQ(g.find("tangents_1")->meta.partitioner_tag, PartitionerTag::IsBackward);
  EXPECT_EQ(g.find("mm_1")->meta.partitioner_tag, PartitionerTag::IsBackward);
  // Backward nodes carry the stack trace of the forward node they differentiate.
  EXPECT_EQ(g.find("sigmoid_backward")->meta.stack_trace, g.find("sigmoid")->meta.stack_trace);
  EXPECT_EQ(g.find("mul")->meta.stack_trace, g.find("sin")->meta.stack_trace);
  EXPECT_EQ(joint->num_primals, 2);
  EXPECT_EQ(joint->num_tangents, 1);
  EXPECT_EQ(joint->num_fwd_outputs, 1);

  PrintOptions o;
  o.include_stride = true;
  o.include_device = true;
  o.expanded_def = true;
  std::string text = print_readable(*joint, o).text;
  std::string root = testing::tests_dir();
  root = root.substr(0, root.rfind('/') + 1);
  for (size_t at; (at = text.find(root)) != std::string::npos;)
    text.replace(at, root.size(), "<repo>/");
  testing::expect_golden("autodiff/seed_joint.txt", text + "\n");
}

TEST(JointGraph, BroadcastGradientsAreReducedAndAccumulated) {
  // x * y + x with y broadcast: mul's other-grad first, then sum_to (sum + view), then add.
  GraphModule j = testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {2, 3, 4}, DType::Float32, true);
    Tensor y = t.input("y", {4}, DType::Float32, true);
    Tensor m = x * y;
    return std::vector<Tensor>{m + x};
  });
  EXPECT_EQ(op_names(j),
            (std::vector<std::string>{"mul", "add", "mul_1", "mul_2", "sum_1", "view", "add_1"}));
  EXPECT_EQ(output_names(j), (std::vector<std::string>{"add", "add_1", "view"}));
  const Node* sum = j.graph().find("sum_1");
  EXPECT_EQ(sum->target().view(), "aten.sum.dim_IntList");
  EXPECT_EQ(sum->args()[2], Argument::boolean(true));
}

TEST(JointGraph, TheEngineRunsTheMostRecentOpFirst) {
  // (x*y).sin() + (x*y).cos(): cos's branch is differentiated before sin's.
  GraphModule j = testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {3}, DType::Float32, true);
    Tensor y = t.input("y", {3}, DType::Float32, true);
    Tensor a = x * y;
    Tensor s = sin(a);
    Tensor b = x * y;
    Tensor c = cos(b);
    return std::vector<Tensor>{s + c};
  });
  EXPECT_EQ(op_names(j), (std::vector<std::string>{"mul", "sin", "mul_1", "cos", "add", "sin_1",
                                                   "neg", "mul_2", "mul_3", "mul_4", "cos_1",
                                                   "mul_5", "mul_6", "mul_7", "add_1", "add_2"}));
}

TEST(JointGraph, InputsWithoutGradGetNone) {
  GraphModule j = testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {3}, DType::Float32, true);
    Tensor y = t.input("y", {3});  // requires_grad=False
    return std::vector<Tensor>{sin(x) * y};
  });
  EXPECT_EQ(output_names(j), (std::vector<std::string>{"mul", "mul_2", "None"}));
  const Node* out = j.graph().output_node();
  EXPECT_EQ(out->meta.desc().elements()[2],
            Argument::string("GradAOTOutput(grad_of=PlainAOTInput(idx=1))"));
  EXPECT_EQ(j.graph().find("tangents_1")->meta.desc(),
            Argument::string("TangentAOTInput(output=PlainAOTOutput(idx=0))"));
}

TEST(JointGraph, EveryZooModelBuildsAValidJointGraph) {
  for (const models::ModelInfo& info : models::all_models()) {
    models::ModelOptions o;
    o.checkpoint.mode = models::CheckpointPlan::Mode::EachLayer;
    auto fwd = info.trace(o);
    ASSERT_TRUE(fwd.ok()) << info.name;
    auto joint = build_joint_graph(*fwd);
    ASSERT_TRUE(joint.ok()) << info.name << ": " << format_all(joint.errors());
    EXPECT_TRUE(verify(*joint).empty()) << info.name;
    for (const Node* n : joint->graph().nodes()) {
      if (n->meta.partitioner_tag == PartitionerTag::IsBackward &&
          n->op() == OpKind::CallFunction) {
        EXPECT_FALSE(n->meta.recompute.has_value())
            << info.name << ": backward node " << n->name() << " is tagged";
      }
    }
  }
}

TEST(JointGraph, AnOpWithoutARuleIsAnError) {
  Tracer tracer;
  Tensor x = tracer.input("x", {3, 4}, DType::Float32, true);
  tracer.output({x.amax({1})});
  GraphModule fwd = tracer.finish();
  auto joint = build_joint_graph(fwd);
  ASSERT_FALSE(joint.ok());
  EXPECT_NE(joint.errors()[0].message.find("node amax: no derivative rule for aten.amax.default"),
            std::string::npos)
      << joint.errors()[0].message;
}

}  // namespace
}  // namespace remat::autodiff
