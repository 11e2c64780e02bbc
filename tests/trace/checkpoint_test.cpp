// checkpoint() regions and selective-checkpointing policies (docs/spec/partitioning.md §1-§2,
// §10.18).
#include <gtest/gtest.h>

#include "remat/ir/graph.h"
#include "remat/trace/checkpoint.h"

namespace remat::trace {
namespace {

struct Tag {
  std::optional<CheckpointPolicy> policy;
  std::optional<int64_t> id;
  friend bool operator==(const Tag&, const Tag&) = default;
};
std::ostream& operator<<(std::ostream& os, const Tag& t) {
  return os << (t.policy ? policy_name(*t.policy) : "untagged") << "/"
            << (t.id ? std::to_string(*t.id) : "-");
}
Tag tag_of(const GraphModule& m, std::string_view name) {
  const Node* n = m.graph().find(name);
  EXPECT_NE(n, nullptr) << name;
  if (!n) return {};
  return {n->meta.recompute, n->meta.ac_graph_id()};
}
constexpr auto kSave = CheckpointPolicy::MustSave;
constexpr auto kRecompute = CheckpointPolicy::PreferRecompute;

TEST(Checkpoint, VanillaRegionsTagEveryOpWithOneIdEach) {
  Tracer tracer;
  Tensor x = tracer.input("x", {4, 4});
  auto block = [](Tensor h) { return cos(mm(h, h)); };
  Tensor a = checkpoint(block, sin(x));
  Tensor b = checkpoint(block, a);
  tracer.output({relu(b)});
  GraphModule m = tracer.finish();
  EXPECT_EQ(tag_of(m, "sin"), Tag{});  // an argument: evaluated before the region opens
  EXPECT_EQ(tag_of(m, "mm"), (Tag{kRecompute, 1}));
  EXPECT_EQ(tag_of(m, "cos"), (Tag{kRecompute, 1}));
  EXPECT_EQ(tag_of(m, "mm_1"), (Tag{kRecompute, 2}));
  EXPECT_EQ(tag_of(m, "cos_1"), (Tag{kRecompute, 2}));
  EXPECT_EQ(tag_of(m, "relu"), Tag{});
}

TEST(Checkpoint, SacIgnoredOpsBypassThePolicy) {
  // test_pre_mode_decomp_has_sac_ignored_ops: sin, add, cos MUST_SAVE; detach PREFER_RECOMPUTE.
  Tracer tracer;
  Tensor x = tracer.input("x", {4});
  auto fn = [](Tensor h) {
    Tensor s = sin(h);
    return cos(s + s.detach());
  };
  std::vector<std::string> seen;
  SacPolicy save_all = SacPolicy::from_bool([&](const SacContext& c) {
    seen.emplace_back(c.target);
    return true;
  });
  tracer.output({checkpoint(selective(save_all, fn), x)});
  GraphModule m = tracer.finish();
  EXPECT_EQ(tag_of(m, "sin"), (Tag{kSave, 1}));
  EXPECT_EQ(tag_of(m, "detach"), (Tag{kRecompute, 1}));
  EXPECT_EQ(tag_of(m, "add"), (Tag{kSave, 1}));
  EXPECT_EQ(tag_of(m, "cos"), (Tag{kSave, 1}));
  EXPECT_EQ(seen,
            (std::vector<std::string>{"aten.sin.default", "aten.add.Tensor", "aten.cos.default"}));
}

TEST(Checkpoint, MultiOutputOpsTagTheirGetitemsAlike) {
  // test_multi_output_op (split for topk): split, getitem, getitem_1 MUST_SAVE; sin, sum_1, cos
  // not.
  Tracer tracer;
  Tensor x = tracer.input("x", {4, 4});
  auto fn = [](Tensor h) {
    std::vector<Tensor> parts = sin(h).split(2);
    return cos(parts[0].sum());
  };
  tracer.output({checkpoint(selective(SacPolicy::save_ops({"aten.split.Tensor"}), fn), x)});
  GraphModule m = tracer.finish();
  for (const char* saved : {"split", "getitem", "getitem_1"})
    EXPECT_EQ(tag_of(m, saved), (Tag{kSave, 1})) << saved;
  for (const char* recomputed : {"sin", "sum_1", "cos"})
    EXPECT_EQ(tag_of(m, recomputed), (Tag{kRecompute, 1})) << recomputed;
}

TEST(Checkpoint, PoliciesSeePerOpCallIndicesAndOutputs) {
  Tracer tracer;
  Tensor x = tracer.input("x", {4, 4});
  auto fn = [](Tensor h) { return mm(mm(h, h), h); };
  SacPolicy second_mm = SacPolicy::from_fn([](const SacContext& c) {
    EXPECT_EQ(c.outputs.size(), 1u);
    EXPECT_EQ(c.region_id, 1);
    EXPECT_FALSE(c.is_recompute);
    return c.call_index == 1 ? CheckpointPolicy::MustSave : CheckpointPolicy::MustRecompute;
  });
  tracer.output({checkpoint(selective(second_mm, fn), x)});
  GraphModule m = tracer.finish();
  EXPECT_EQ(tag_of(m, "mm"), (Tag{CheckpointPolicy::MustRecompute, 1}));
  EXPECT_EQ(tag_of(m, "mm_1"), (Tag{kSave, 1}));
}

TEST(Checkpoint, ListPoliciesNeedOverloads) {
  EXPECT_THROW(SacPolicy::save_ops({"aten.mm"}), std::invalid_argument);
  EXPECT_THROW(SacPolicy::save_ops({"aten.nonexistent.default"}), std::invalid_argument);
  SacPolicy p = SacPolicy::save_ops({"torch.ops.aten.mm.default"});
  SacContext ctx;
  ctx.target = "aten.mm.default";
  EXPECT_EQ(p(ctx), kSave);
  ctx.target = "aten.bmm.default";
  EXPECT_EQ(p(ctx), kRecompute);
}

TEST(Checkpoint, NamePoliciesFollowCheckpointName) {
  for (bool only : {true, false}) {
    Tracer tracer;
    Tensor x = tracer.input("x", {4});
    auto fn = [](Tensor h) { return sin(checkpoint_name(relu(h), "act")); };
    SacPolicy p = only ? SacPolicy::save_only_these_names({"act"})
                       : SacPolicy::save_all_but_these_names({"act"});
    tracer.output({checkpoint(selective(p, fn), x)});
    GraphModule m = tracer.finish();
    EXPECT_EQ(tag_of(m, "relu"), (Tag{only ? kSave : kRecompute, 1}));
    EXPECT_EQ(tag_of(m, "sin"), (Tag{only ? kRecompute : kSave, 1}));
    const Node* relu_node = m.graph().find("relu");
    ASSERT_EQ(relu_node->meta.extras().size(), 1u);
    EXPECT_EQ(relu_node->meta.extras()[0].json, "\"act\"");
  }
}

TEST(Checkpoint, NestedRegionsTagInnerNodesWithTheInnerRegion) {
  // Note [nested checkpoint regions] in tracer.cpp.
  Tracer tracer;
  Tensor x = tracer.input("x", {4});
  auto inner = [](Tensor h) { return cos(h); };
  auto outer = [&](Tensor h) {
    Tensor a = sin(h);
    Tensor b = checkpoint(
        selective(SacPolicy::from_bool([](const SacContext&) { return true; }), inner), a);
    return exp(b);
  };
  tracer.output({checkpoint(outer, x)});
  GraphModule m = tracer.finish();
  EXPECT_EQ(tag_of(m, "sin"), (Tag{kRecompute, 1}));
  EXPECT_EQ(tag_of(m, "cos"), (Tag{kSave, 2}));
  EXPECT_EQ(tag_of(m, "exp"), (Tag{kRecompute, 1}));
}

TEST(Checkpoint, ARegionClosesWhenItsFunctionThrows) {
  Tracer tracer;
  Tensor x = tracer.input("x", {4});
  Tensor bad = tracer.input("bad", {5});
  auto fails = [&](Tensor h) { return h + bad; };
  EXPECT_THROW((void)checkpoint(fails, x).get(), TraceError);
  tracer.output({sin(x)});
  GraphModule m = tracer.finish();
  EXPECT_EQ(tag_of(m, "sin"), Tag{});
}

TEST(Checkpoint, RegionFramesJoinTheStackTrace) {
  Tracer tracer;
  Tensor x = tracer.input("x", {4});
  auto fn = [](Tensor h) { return sin(h); };
  int line = __LINE__ + 1;
  Tensor y = checkpoint(fn, x);
  tracer.output({y});
  GraphModule m = tracer.finish();
  std::string trace(m.graph().find("sin")->meta.stack_trace.view());
  EXPECT_TRUE(trace.starts_with(std::string("  File \"") + __FILE__ + "\", line " +
                                std::to_string(line) +
                                ", in TestBody\n    Tensor y = checkpoint(fn, x);\n"))
      << trace;
  EXPECT_NE(trace.find("in <lambda>\n    auto fn = [](Tensor h) { return sin(h); };"),
            std::string::npos)
      << trace;
}

}  // namespace
}  // namespace remat::trace
