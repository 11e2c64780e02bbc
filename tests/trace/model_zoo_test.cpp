// The model zoo: every model traces to a valid graph; the seed and gpt2 regions look as PyTorch
// tags them; policies reach the right nodes.
#include <gtest/gtest.h>

#include <set>

#include "remat/ir/graph.h"
#include "remat/ir/verify.h"
#include "remat/models/model_zoo.h"
#include "remat/print/printer.h"
#include "testing/golden.h"

namespace remat::models {
namespace {

GraphModule trace_or_die(std::string_view name, ModelOptions o = {}) {
  const ModelInfo* info = find_model(name);
  EXPECT_NE(info, nullptr) << name;
  auto m = info->trace(o);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : format_all(m.errors()));
  return m.ok() ? std::move(*m) : GraphModule{};
}

// The ids of call_function nodes in graph order, each distinct id once.
std::vector<int64_t> region_ids(const GraphModule& m) {
  std::vector<int64_t> ids;
  for (const Node* n : m.graph().nodes()) {
    auto id = n->meta.ac_graph_id();
    if (id && (ids.empty() || ids.back() != *id)) ids.push_back(*id);
  }
  return ids;
}

TEST(ModelZoo, SeedIsTheSeedsForwardGraph) {
  GraphModule m = trace_or_die("seed");
  std::vector<std::string> ops;
  for (const Node* n : m.graph().nodes()) {
    if (n->op() == OpKind::CallFunction) ops.push_back(n->name());
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"sin", "mm", "sigmoid"}));
  const Graph& g = m.graph();
  EXPECT_FALSE(g.find("sin")->meta.recompute.has_value());
  EXPECT_FALSE(g.find("sin")->meta.ac_graph_id().has_value());
  for (const char* tagged : {"mm", "sigmoid"}) {
    EXPECT_EQ(g.find(tagged)->meta.recompute, CheckpointPolicy::PreferRecompute) << tagged;
    EXPECT_EQ(g.find(tagged)->meta.ac_graph_id(), 1) << tagged;
  }
  // The printed graph, with the tag lines; source paths shown relative to the repository.
  PrintOptions o;
  o.include_stride = true;
  o.include_device = true;
  std::string text = print_readable(m, o).text;
  std::string root = testing::tests_dir();
  root = root.substr(0, root.rfind('/') + 1);
  for (size_t at; (at = text.find(root)) != std::string::npos;)
    text.replace(at, root.size(), "<repo>/");
  testing::expect_golden("trace/seed_forward.txt", text + "\n");
}

TEST(ModelZoo, Gpt2CheckpointedEachLayerHasOneRegionPerLayer) {
  ModelOptions o;
  o.layers = 2;
  o.checkpoint.mode = CheckpointPlan::Mode::EachLayer;
  GraphModule m = trace_or_die("gpt2", o);
  EXPECT_EQ(region_ids(m), (std::vector<int64_t>{1, 2}));
  // Every op of a block is inside its region; the final layer norm is not.
  const Node* last_ln = nullptr;
  for (const Node* n : m.graph().nodes()) {
    if (n->target().view() == "aten.native_layer_norm.default") last_ln = n;
  }
  ASSERT_NE(last_ln, nullptr);
  EXPECT_FALSE(last_ln->meta.ac_graph_id().has_value());
  o.layers = 4;
  o.checkpoint = {CheckpointPlan::Mode::EveryK, 2};
  EXPECT_EQ(region_ids(trace_or_die("gpt2", o)), (std::vector<int64_t>{1, 2}));
  o.checkpoint = {};
  EXPECT_TRUE(region_ids(trace_or_die("gpt2", o)).empty());
}

TEST(ModelZoo, SaveMatmulsSavesExactlyTheMatmuls) {
  ModelOptions o;
  o.checkpoint.mode = CheckpointPlan::Mode::EachLayer;
  o.policy = "save-matmuls";
  GraphModule m = trace_or_die("gpt2", o);
  int saved = 0;
  for (const Node* n : m.graph().nodes()) {
    if (!n->meta.recompute) continue;
    std::string_view t = n->target().view();
    bool matmul = t == "aten.mm.default" || t == "aten.addmm.default" || t == "aten.bmm.default";
    EXPECT_EQ(*n->meta.recompute,
              matmul ? CheckpointPolicy::MustSave : CheckpointPolicy::PreferRecompute)
        << n->name();
    saved += matmul;
  }
  EXPECT_EQ(saved, 2 * 6);  // per block: qkv, q@k, att@v, proj, fc, mlp proj
  o.policy = "save-names:attn_out";
  GraphModule named = trace_or_die("gpt2", o);
  std::set<std::string> must_save;
  for (const Node* n : named.graph().nodes()) {
    if (n->meta.recompute == CheckpointPolicy::MustSave) must_save.insert(n->name());
  }
  EXPECT_EQ(must_save, (std::set<std::string>{"_unsafe_view_4", "_unsafe_view_9"}));
}

TEST(ModelZoo, EveryModelTracesToAValidGraph) {
  for (const ModelInfo& info : all_models()) {
    for (const char* plan : {"none", "each-layer"}) {
      ModelOptions o;
      o.checkpoint = *CheckpointPlan::parse(plan);
      auto m = info.trace(o);
      ASSERT_TRUE(m.ok()) << info.name << ": " << format_all(m.errors());
      EXPECT_TRUE(verify(*m).empty()) << info.name;
      EXPECT_GT(m->graph().size(), 3u) << info.name;
      bool tagged = false;
      for (const Node* n : m->graph().nodes()) tagged = tagged || n->meta.recompute.has_value();
      EXPECT_EQ(tagged, std::string_view(plan) != "none" || info.name == "seed")
          << info.name << " " << plan;
    }
  }
}

TEST(ModelZoo, BadOptionsAreErrors) {
  ModelOptions o;
  o.image = 4;
  o.layers = 3;
  EXPECT_FALSE(find_model("convnet")->trace(o).ok());
  ModelOptions heads;
  heads.hidden = 30;
  heads.heads = 4;
  EXPECT_FALSE(find_model("gpt2")->trace(heads).ok());
  ModelOptions policy;
  policy.checkpoint.mode = CheckpointPlan::Mode::EachLayer;
  policy.policy = "save-ops:aten.mm";
  auto m = find_model("mlp")->trace(policy);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.errors()[0].message.find("OpOverloadPacket"), std::string::npos);
  EXPECT_FALSE(policy_by_name("nonsense").ok());
  EXPECT_FALSE(CheckpointPlan::parse("every:0").ok());
  EXPECT_EQ(CheckpointPlan::parse("every:3")->k, 3);
}

}  // namespace
}  // namespace remat::models
