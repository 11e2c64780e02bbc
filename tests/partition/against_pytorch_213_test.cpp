// PyTorch 2.13's joints (tests/data/torch-2.13, tools/capture_torch2_joints.py) partitioned by
// remat beside what 2.13's own min-cut made of them, and PyTorch's op classes as remat reads them.
#include <gtest/gtest.h>

#include <algorithm>

#include "remat/io/graph_json.h"
#include "remat/ir/graph.h"
#include "remat/ops/aten_overloads.h"
#include "remat/ops/op_registry.h"
#include "remat/partition/default_partition.h"
#include "remat/partition/min_cut_partition.h"
#include "remat/partition/op_classes.h"
#include "remat/partition/validity.h"
#include "remat/passes/rng_functionalization.h"
#include "testing/golden.h"

namespace remat::partition {
namespace {

GraphModule load(const std::string& name) {
  auto m = load_graph_json(testing::data_path("torch-2.13/" + name));
  EXPECT_TRUE(m.ok()) << name << ": " << (m.ok() ? "" : format_all(m.errors()));
  return m.ok() ? std::move(*m) : GraphModule{};
}

std::vector<std::string> get_attrs(const GraphModule& m) {
  std::vector<std::string> out;
  for (const Node* n : m.graph().nodes()) {
    if (n->op() == OpKind::GetAttr) out.push_back(n->name());
  }
  return out;
}

// The values a forward returns beyond its real outputs, by name.
std::vector<std::string> saved_by(const GraphModule& fw, size_t real_outputs) {
  std::vector<std::string> out;
  std::vector<Argument> outputs = fw.outputs();
  for (size_t i = real_outputs; i < outputs.size(); ++i)
    out.push_back(outputs[i].is_node() ? outputs[i].as_node()->name() : "");
  return out;
}

TEST(AgainstPyTorch213, LiftedTensorConstantsArePlacedWherePyTorchPlacesThem) {
  // torch.tensor(...) in a forward becomes a get_attr (`_tensor_constant0`) read by
  // lift_fresh_copy: one outside the checkpoint region, one inside (recomputed in the backward).
  // Every transformers model without checkpointing holds one (Llama's masks, T5's buckets).
  GraphModule joint = load("tensor_constants_joint.json");
  GraphModule fw = load("tensor_constants_fw.json"), bw = load("tensor_constants_bw.json");
  ASSERT_EQ(get_attrs(joint).size(), 2u);
  auto p = min_cut_partition(joint);
  ASSERT_TRUE(p.ok()) << format_all(p.errors());
  EXPECT_EQ(get_attrs(p->graphs.forward), get_attrs(fw));
  EXPECT_EQ(get_attrs(p->graphs.backward), get_attrs(bw));
  EXPECT_EQ(p->graphs.saved_values, saved_by(fw, num_forward_outputs(joint)));
  std::vector<std::string> violations = check_validity(joint, p->graphs, p->report);
  EXPECT_TRUE(violations.empty()) << (violations.empty() ? "" : violations.front());
  auto d = default_partition(joint);
  ASSERT_TRUE(d.ok()) << format_all(d.errors());
  EXPECT_EQ(get_attrs(d->graphs.forward).size(), 2u);
}

TEST(AgainstPyTorch213, OpClassesAreTheInstalledPyTorchs) {
  // Under a budget PyTorch bans only its random and compute-intensive ops: CPU attention (no
  // FLOP formula, not in its list) may be recomputed, the CUDA kernels may not.
  EXPECT_TRUE(is_torch_random_op("aten.native_dropout.default"));
  EXPECT_TRUE(is_torch_random_op("aten.rand_like.default"));
  EXPECT_FALSE(is_torch_random_op("aten.bernoulli.p"));
  EXPECT_TRUE(is_torch_compute_intensive_op("aten.mm.default"));
  EXPECT_TRUE(is_torch_compute_intensive_op("aten._scaled_dot_product_flash_attention.default"));
  EXPECT_TRUE(
      is_torch_compute_intensive_op("aten._scaled_dot_product_efficient_attention.default"));
  EXPECT_FALSE(
      is_torch_compute_intensive_op("aten._scaled_dot_product_flash_attention_for_cpu.default"));
  EXPECT_FALSE(is_torch_compute_intensive_op("aten.add.Tensor"));
  EXPECT_TRUE(in_torch_recompute_allowlist("aten.lift_fresh_copy.default"));
}

TEST(AgainstPyTorch213, RecomputedCpuAttentionReplaysTheForwardsRngStateAsPyTorchDoes) {
  // CPU attention is tagged nondeterministic_seeded (its dropout_p): recomputed under a
  // checkpoint tag, PyTorch runs it under run_and_save_rng_state and the forward returns the
  // state (inkling2's and every checkpointed model's SDPA on CPU). remat's registry lacks the op.
  EXPECT_TRUE(torch_seeded_overload("aten._scaled_dot_product_flash_attention_for_cpu.default"));
  EXPECT_TRUE(torch_seeded_overload("aten.native_dropout.default"));
  EXPECT_FALSE(torch_seeded_overload("aten.mm.default"));
  GraphModule joint = load("attention_joint.json");
  GraphModule fw = load("attention_fw.json"), bw = load("attention_bw.json");
  auto p = min_cut_partition(joint);
  ASSERT_TRUE(p.ok()) << format_all(p.errors());
  EXPECT_EQ(p->rng_replayed,
            std::vector<std::string>{"_scaled_dot_product_flash_attention_for_cpu"});
  auto wrapper_ops = [](const GraphModule& m, std::string_view wrapper, size_t op_arg) {
    std::vector<std::string> ops;
    for (const Node* n : m.graph().nodes())
      if (n->target().view().ends_with(wrapper)) ops.emplace_back(n->args()[op_arg].as_text());
    return ops;
  };
  EXPECT_EQ(wrapper_ops(p->graphs.forward, "run_and_save_rng_state", 0),
            wrapper_ops(fw, "run_and_save_rng_state", 0));
  EXPECT_EQ(wrapper_ops(p->graphs.backward, "run_with_rng_state", 1),
            wrapper_ops(bw, "run_with_rng_state", 1));
  // The state is the forward's last output (no symint is saved) and the backward's input.
  size_t real = num_forward_outputs(joint);
  ASSERT_EQ(saved_by(p->graphs.forward, real).size(), saved_by(fw, real).size());
  const Node* state = p->graphs.forward.outputs().back().as_node();
  EXPECT_TRUE(is_getitem(*state));
  EXPECT_EQ(state->args()[0].as_node()->target().view(), "higher_order.run_and_save_rng_state");
  EXPECT_NE(p->graphs.backward.graph().find("rng_state_output_0"), nullptr);
  std::vector<std::string> violations = check_validity(joint, p->graphs, p->report);
  EXPECT_TRUE(violations.empty()) << (violations.empty() ? "" : violations.front());

  // Untagged, PyTorch does not replay it (a memory budget may recompute CPU attention).
  Graph g;
  Node* x = g.placeholder("x");
  Node* attention = g.call_function("aten._scaled_dot_product_flash_attention_for_cpu.default",
                                    {Argument::node(x), Argument::node(x), Argument::node(x)});
  EXPECT_FALSE(passes::replays_rng_state(*attention));
  attention->meta.recompute = CheckpointPolicy::PreferRecompute;
  EXPECT_TRUE(passes::replays_rng_state(*attention));
  attention->meta.recompute = CheckpointPolicy::MustSave;
  EXPECT_FALSE(passes::replays_rng_state(*attention));
}

TEST(AgainstPyTorch213, OnlyAnInPlaceUnknownOpOrTheUsersCautionBansRecomputation) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* attention = g.call_function("aten._scaled_dot_product_flash_attention_for_cpu.default",
                                    {Argument::node(x), Argument::node(x), Argument::node(x)});
  Node* in_place = g.call_function("aten.bernoulli_.float", {Argument::node(x)});
  Node* known = g.call_function("aten.sin.default", {Argument::node(x)});
  EXPECT_FALSE(recompute_never_assumed_safe(*attention, false));
  EXPECT_TRUE(recompute_never_assumed_safe(*attention, true));
  EXPECT_TRUE(recompute_never_assumed_safe(*in_place, false));
  EXPECT_FALSE(recompute_never_assumed_safe(*known, true));
  EXPECT_FALSE(recompute_never_assumed_safe(*x, true));
}

TEST(AgainstPyTorch213, AttentionFlopsAreFlopCounterModes) {
  // torch.utils.flop_counter.sdpa_flop_count((2, 4, 8, 16), (2, 4, 10, 16), (2, 4, 10, 12)):
  // 35840. The lower-level kernels take (batch, seq, heads, dim); CPU attention counts 0.
  Graph g;
  auto input = [&](const char* name, std::vector<SymInt> sizes) {
    Node* p = g.placeholder(name);
    p->meta.set_tensor(TensorMeta(DType::Float32, sizes));
    return Argument::node(p);
  };
  std::vector<Argument> bhsd = {input("q", {2, 4, 8, 16}), input("k", {2, 4, 10, 16}),
                                input("v", {2, 4, 10, 12})};
  std::vector<Argument> bshd = {input("q2", {2, 8, 4, 16}), input("k2", {2, 10, 4, 16}),
                                input("v2", {2, 10, 4, 12})};
  EXPECT_EQ(flop_counter_flops(
                *g.call_function("aten._scaled_dot_product_flash_attention.default", bhsd)),
            35840);
  EXPECT_EQ(flop_counter_flops(
                *g.call_function("aten._scaled_dot_product_efficient_attention.default", bhsd)),
            35840);
  EXPECT_EQ(flop_counter_flops(*g.call_function("aten._flash_attention_forward.default", bshd)),
            35840);
  EXPECT_EQ(flop_counter_flops(
                *g.call_function("aten._scaled_dot_product_flash_attention_for_cpu.default", bhsd)),
            0);
}

}  // namespace
}  // namespace remat::partition
