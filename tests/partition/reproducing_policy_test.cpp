// The policy that reproduces a partition: its calls as selective checkpointing counts them, its
// tags, and PyTorch's min-cut's outcome under it, on the zoo's checkpointed models. (That
// PyTorch 2.13 itself saves the same: python/tests/test_policy.py.)
#include "remat/partition/reproducing_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "remat/autodiff/joint_graph.h"
#include "remat/io/graph_json.h"
#include "remat/models/model_zoo.h"
#include "remat/ops/op_registry.h"
#include "remat/partition/optimal_partition.h"
#include "remat/partition/partition_joint.h"
#include "remat/partition/policy_module.h"
#include "remat/print/printer.h"
#include "remat/print/readable_parser.h"
#include "testing/golden.h"

namespace remat::partition {
namespace {

struct Zoo {
  const char* model;
  const char* plan;
  const char* policy = "recompute-all";
  double dropout = 0;
  int64_t layers = 2;
};

std::string describe(const Zoo& z) {
  return std::string(z.model) + " " + z.plan + " " + z.policy + " dropout " +
         std::to_string(z.dropout);
}

GraphModule zoo_joint(const Zoo& z) {
  models::ModelOptions o;
  o.checkpoint = *models::CheckpointPlan::parse(z.plan);
  o.policy = z.policy;
  o.dropout = z.dropout;
  o.layers = z.layers;
  auto forward = models::find_model(z.model)->trace(o);
  EXPECT_TRUE(forward.ok()) << describe(z);
  auto joint = autodiff::build_joint_graph(*forward);
  EXPECT_TRUE(joint.ok()) << describe(z);
  return joint.ok() ? std::move(*joint) : GraphModule{};
}

std::vector<std::string> saved_names(const PartitionReport& r) {
  std::vector<std::string> out;
  for (const SavedValue& v : r.saved_values) out.push_back(v.name);
  return out;
}
std::vector<std::string> recomputed_names(const PartitionReport& r) {
  std::vector<std::string> out;
  for (const RecomputedNode& n : r.recomputed) out.push_back(n.name);
  return out;
}

Expected<ReproducingPolicy> policy_for(const GraphModule& joint, const PartitionReport& r) {
  return reproducing_policy(joint, saved_names(r), recomputed_names(r));
}

const Zoo kCheckpointed[] = {
    {"mlp", "each-layer"},
    {"mlp", "each-layer", "save-matmuls"},
    {"gpt2", "each-layer"},
    {"gpt2", "each-layer", "recompute-all", 0.1},
    {"gpt2", "every:2", "save-matmuls", 0, 4},
    {"convnet", "each-layer"},
};

TEST(ReproducingPolicy, ReproducesEveryMinCutChoiceExactly) {
  for (const Zoo& z : kCheckpointed) {
    GraphModule joint = zoo_joint(z);
    auto p = partition_joint(joint, Strategy::MinCut);
    ASSERT_TRUE(p.ok()) << describe(z) << ": " << format_all(p.errors());
    auto policy = policy_for(joint, p->report);
    ASSERT_TRUE(policy.ok()) << describe(z) << ": " << format_all(policy.errors());
    EXPECT_TRUE(policy->mismatches.empty())
        << describe(z) << ": " << policy->mismatches[0].name << ": " << policy->mismatches[0].why;
    EXPECT_EQ(std::set<std::string>(policy->predicted.begin(), policy->predicted.end()),
              std::set<std::string>(policy->chosen.begin(), policy->chosen.end()))
        << describe(z);
    // remat's tracer makes one node per call, and a getitem per output: the calls are the
    // region's nodes but the getitems and the detaches a policy never sees, each once.
    size_t region_calls = 0;
    std::set<int64_t> regions;
    for (const Node* n : joint.graph().nodes()) {
      if (n->op() != OpKind::CallFunction || !n->meta.ac_graph_id()) continue;
      regions.insert(*n->meta.ac_graph_id());
      if (!is_getitem(*n)) ++region_calls;
    }
    EXPECT_EQ(policy->call_count() + policy->unseen.size(), region_calls) << describe(z);
    ASSERT_EQ(policy->regions.size(), regions.size()) << describe(z);
    for (size_t r = 0; r < regions.size(); ++r)  // in the order the forward enters them
      EXPECT_EQ(policy->regions[r].ac_graph_id, *std::next(regions.begin(), r));
    // Call indices count each op from 0 within its region.
    for (const PolicyRegion& region : policy->regions) {
      std::map<std::string, int64_t> next;
      for (const PolicyCall& c : region.calls) EXPECT_EQ(c.index, next[c.op]++) << c.op;
    }
  }
}

TEST(ReproducingPolicy, TagsRecomputedCallsPreferRecomputeAndPinsTheRest) {
  GraphModule joint = zoo_joint({"gpt2", "each-layer", "save-matmuls"});
  auto p = partition_joint(joint, Strategy::MinCut);
  ASSERT_TRUE(p.ok());
  auto policy = policy_for(joint, p->report);
  ASSERT_TRUE(policy.ok());
  std::set<std::string> recomputed;
  for (const RecomputedNode& n : p->report.recomputed) recomputed.insert(n.name);
  size_t prefer = 0;
  for (const PolicyRegion& region : policy->regions) {
    for (const PolicyCall& c : region.calls) {
      bool any_recomputed = false;
      for (const std::string& n : c.nodes)
        any_recomputed = any_recomputed || recomputed.contains(n);
      EXPECT_EQ(c.save, !any_recomputed) << c.op << " #" << c.index;
      prefer += c.save ? 0 : 1;
    }
  }
  EXPECT_GT(prefer, 0u);
  EXPECT_GT(policy->saved_call_count(), 0u);
}

TEST(ReproducingPolicy, ReproducesTheOptimumWithinRegions) {
  for (const Zoo& z : {Zoo{"gpt2", "each-layer"}, Zoo{"gpt2", "each-layer", "recompute-all", 0.1},
                       Zoo{"mlp", "each-layer"}}) {
    GraphModule joint = zoo_joint(z);
    auto min_cut = partition_joint(joint, Strategy::MinCut);
    ASSERT_TRUE(min_cut.ok());
    int64_t least = min_cut->report.activation_bytes.value_or(0);
    for (int64_t factor : {1, 4, 32}) {
      OptimalOptions o;
      o.budget_bytes = least * factor;
      o.within_regions = true;
      o.time_limit_seconds = 20;
      auto optimal = partition_joint(joint, Strategy::Optimal, {}, o);
      ASSERT_TRUE(optimal.ok()) << describe(z) << ": " << format_all(optimal.errors());
      const PartitionReport& r = optimal->report;
      EXPECT_LE(r.activation_bytes.value_or(0), *o.budget_bytes);
      EXPECT_LE(r.recompute_flops.value_or(0), min_cut->report.recompute_flops.value_or(0));
      auto policy = policy_for(joint, r);
      ASSERT_TRUE(policy.ok()) << format_all(policy.errors());
      EXPECT_TRUE(policy->mismatches.empty())
          << describe(z) << " x" << factor << ": " << policy->mismatches[0].name << ": "
          << policy->mismatches[0].why;
    }
  }
}

TEST(ReproducingPolicy, TheOptimumWithinRegionsTakesWhatLiesOutsideAsPyTorchChoseIt) {
  // As in transformers' models logged by PyTorch 2.13: outside the region an op missing from
  // remat's registry (isnan here; BERT encoder-decoder's attention mask had bitwise_and, since
  // added), which PyTorch's min-cut recomputes from the smaller input; inside, a MUST_SAVE view
  // (Llama's rotary unsqueeze at a region boundary). Each stopped the optimum within the regions
  // (no policy could be written for the compile).
  constexpr std::string_view kJoint = R"(class inner_f(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[4, 8][8, 1]cpu"  # PlainAOTInput(idx=0)
        primals_2: "f32[8, 8][8, 1]cpu"  # PlainAOTInput(idx=1)
        primals_3: "f32[1, 1][1, 1]cpu"  # PlainAOTInput(idx=2)
        tangents_1: "f32[4, 8][8, 1]cpu"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, primals_2, primals_3, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        expand: "f32[4, 8][0, 0]cpu" = torch.ops.aten.expand.default(primals_3, [4, 8]);  primals_3 = None
        isnan: "b8[4, 8][8, 1]cpu" = torch.ops.aten.isnan.default(expand);  expand = None

        # ac_graph_id: 1 - MUST_SAVE
        view: "f32[4, 8][8, 1]cpu" = torch.ops.aten.view.default(primals_1, [4, 8]);  primals_1 = None

        # ac_graph_id: 1 - PREFER_RECOMPUTE
        mm: "f32[4, 8][8, 1]cpu" = torch.ops.aten.mm.default(view, primals_2)
        relu: "f32[4, 8][8, 1]cpu" = torch.ops.aten.relu.default(mm);  mm = None
        mul: "f32[4, 8][8, 1]cpu" = torch.ops.aten.mul.Tensor(relu, isnan)
        mul_1: "f32[4, 8][8, 1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, isnan);  tangents_1 = isnan = None
        threshold_backward: "f32[4, 8][8, 1]cpu" = torch.ops.aten.threshold_backward.default(mul_1, relu, 0);  mul_1 = relu = None
        t: "f32[8, 4][1, 8]cpu" = torch.ops.aten.t.default(view);  view = None
        mm_1: "f32[8, 8][8, 1]cpu" = torch.ops.aten.mm.default(t, threshold_backward);  t = threshold_backward = None
        return pytree.tree_unflatten([
            mul,  # PlainAOTOutput(idx=0)
            None,  # None
            mm_1,  # GradAOTOutput(grad_of=PlainAOTInput(idx=1))
            None,  # None
        ], self._out_spec)
)";
  auto joint = parse_readable(kJoint, "joint.txt");
  ASSERT_TRUE(joint.ok()) << format_all(joint.errors());
  auto plain = partition_joint(*joint, Strategy::MinCut);
  ASSERT_TRUE(plain.ok()) << format_all(plain.errors());
  auto recomputed = [](const PartitionReport& r, std::string_view name) {
    return std::ranges::any_of(r.recomputed,
                               [&](const RecomputedNode& n) { return n.name == name; });
  };
  auto saved = [](const PartitionReport& r, std::string_view name) {
    return std::ranges::any_of(r.saved_values, [&](const SavedValue& v) { return v.name == name; });
  };
  ASSERT_EQ(node_op(*joint->graph().find("isnan")), nullptr);  // still outside the registry
  ASSERT_TRUE(recomputed(plain->report, "isnan"));
  ASSERT_TRUE(saved(plain->report, "view"));
  for (double budget : {1.0, 0.5, 0.0}) {
    MinCutConfig config;
    config.memory_budget = budget;
    OptimalOptions o;
    o.within_regions = true;
    auto optimal = partition_joint(*joint, Strategy::Optimal, config, o);
    ASSERT_TRUE(optimal.ok()) << budget << ": " << format_all(optimal.errors());
    EXPECT_TRUE(recomputed(optimal->report, "isnan")) << budget;  // as PyTorch chose
    auto policy = policy_for(*joint, optimal->report);
    ASSERT_TRUE(policy.ok()) << format_all(policy.errors());
    EXPECT_TRUE(policy->mismatches.empty()) << budget << ": " << policy->mismatches[0].name;
  }
}

// An op with an in-place form applied to a view is read as a possible in-place change whose
// write-back follows; a node of another shape than the view's chain is no write-back (Inkling's
// attention clamps a relative-position index, then expands it: two calls; no traceback here to
// tell, nor, in the graph, a sequence number: tensors that need no gradient share one).
TEST(ReproducingPolicy, AViewOfAnotherShapeIsNoWriteBack) {
  auto joint = parse_readable(R"(class joint_graph(torch.nn.Module):
    def forward(self, primals_1: "f32[2, 4, 8]", primals_2: "i64[8]", tangents_1: "f32[2, 4, 8]"):
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        unsqueeze: "i64[1, 1, 8]" = torch.ops.aten.unsqueeze.default(primals_2, 0)
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        clamp: "i64[1, 1, 8]" = torch.ops.aten.clamp.default(unsqueeze, 0, 7);  unsqueeze = None
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        expand: "i64[2, 4, 8]" = torch.ops.aten.expand.default(clamp, [2, 4, -1]);  clamp = None
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        gather: "f32[2, 4, 8]" = torch.ops.aten.gather.default(primals_1, -1, expand);  primals_1 = expand = None
        mul: "f32[2, 4, 8]" = torch.ops.aten.mul.Tensor(tangents_1, 2);  tangents_1 = None
        return (gather, mul)
)",
                              "<index clamp>");
  ASSERT_TRUE(joint.ok()) << format_all(joint.errors());
  std::map<std::string, std::string> op_of;
  for (const RegionCalls::Call& c : region_calls(*joint).calls)
    for (const Node* n : c.nodes) op_of[n->name()] = c.op;
  EXPECT_EQ(op_of.at("clamp"), "aten.clamp.default");
  EXPECT_EQ(op_of.at("expand"), "aten.expand.default");
}

// XGLM clamps attention scores with `torch.max(w, torch.full((), min))` in every layer: PyTorch's
// CSE shares the first layer's constant (a detach no policy sees) with the second, and its tag
// clean-up makes that region output MUST_SAVE. The optimum within the regions must save it too.
TEST(ReproducingPolicy, TheOptimumWithinRegionsSavesWhatPyTorchsTagCleanUpMakesMustSave) {
  auto joint = parse_readable(R"(class joint_graph(torch.nn.Module):
    def forward(self, primals_1: "f32[4]", tangents_1: "f32[4]"):
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        full: "f32[]" = torch.ops.aten.full.default([], -3.4028234663852886e+38, device = device(type='cpu'), pin_memory = False)
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        detach: "f32[]" = torch.ops.aten.detach.default(full);  full = None
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        maximum: "f32[4]" = torch.ops.aten.maximum.default(primals_1, detach)
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        sin: "f32[4]" = torch.ops.aten.sin.default(maximum)
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        full_1: "f32[]" = torch.ops.aten.full.default([], -3.4028234663852886e+38, device = device(type='cpu'), pin_memory = False)
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        detach_1: "f32[]" = torch.ops.aten.detach.default(full_1);  full_1 = None
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        maximum_1: "f32[4]" = torch.ops.aten.maximum.default(sin, detach_1)
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        sin_1: "f32[4]" = torch.ops.aten.sin.default(maximum_1)
        cos: "f32[4]" = torch.ops.aten.cos.default(maximum_1);  maximum_1 = None
        mul: "f32[4]" = torch.ops.aten.mul.Tensor(tangents_1, cos);  tangents_1 = cos = None
        gt: "b8[4]" = torch.ops.aten.gt.Tensor(sin, detach_1);  sin = detach_1 = None
        where: "f32[4]" = torch.ops.aten.where.self(gt, mul, primals_1);  gt = mul = None
        cos_1: "f32[4]" = torch.ops.aten.cos.default(maximum);  maximum = None
        mul_1: "f32[4]" = torch.ops.aten.mul.Tensor(where, cos_1);  where = cos_1 = None
        gt_1: "b8[4]" = torch.ops.aten.gt.Tensor(primals_1, detach);  primals_1 = detach = None
        where_1: "f32[4]" = torch.ops.aten.where.self(gt_1, mul_1, tangents_1);  gt_1 = mul_1 = None
        return (sin_1, where_1)
)",
                              "<xglm-like>");
  ASSERT_TRUE(joint.ok()) << format_all(joint.errors());
  auto plain = partition_joint(*joint, Strategy::MinCut);
  ASSERT_TRUE(plain.ok()) << format_all(plain.errors());
  ASSERT_TRUE(std::ranges::any_of(plain->report.tags_made_must_save, [](const std::string& n) {
    return n == "detach";
  })) << "CSE no longer shares the constant";
  OptimalOptions o;
  o.within_regions = true;
  auto optimal = partition_joint(*joint, Strategy::Optimal, {}, o);
  ASSERT_TRUE(optimal.ok()) << format_all(optimal.errors());
  auto policy = policy_for(*joint, optimal->report);
  ASSERT_TRUE(policy.ok()) << format_all(policy.errors());
  EXPECT_TRUE(policy->mismatches.empty()) << policy->mismatches[0].name;
}

TEST(ReproducingPolicy, NamesWhatLiesOutsideTheRegions) {
  // Below budget 1 PyTorch's knapsack recomputes values outside the regions (the last layer
  // norm's statistics); under a policy PyTorch partitions at its default budget and saves them.
  GraphModule joint = zoo_joint({"gpt2", "each-layer"});
  MinCutConfig config;
  config.memory_budget = 0.5;
  auto p = partition_joint(joint, Strategy::MinCut, config);
  ASSERT_TRUE(p.ok());
  auto policy = policy_for(joint, p->report);
  ASSERT_TRUE(policy.ok());
  ASSERT_FALSE(policy->mismatches.empty());
  for (const PolicyMismatch& m : policy->mismatches) {
    const Node* n = joint.graph().find(m.name);
    ASSERT_NE(n, nullptr);
    EXPECT_FALSE(n->meta.ac_graph_id()) << m.name;
    EXPECT_NE(m.why.find("outside every checkpoint region"), std::string::npos) << m.why;
    EXPECT_NE(m.chosen_saved, m.predicted_saved);
  }
}

TEST(ReproducingPolicy, GroupsTheNodesOfOneCallByTheOpThatMadeThem) {
  GraphModule joint = zoo_joint({"gpt2", "each-layer"});
  auto baseline = partition_joint(joint, Strategy::MinCut);
  ASSERT_TRUE(baseline.ok());
  auto before = policy_for(joint, baseline->report);
  ASSERT_TRUE(before.ok());
  std::vector<Node*> region;
  for (Node* n : joint.graph().nodes())
    if (n->op() == OpKind::CallFunction && n->meta.ac_graph_id() == 1 && !is_getitem(*n) &&
        n->target().view() != "aten.detach.default")
      region.push_back(n);
  ASSERT_GE(region.size(), 10u);
  // Two consecutive region nodes one decomposition made (the same original_aten and autograd
  // sequence number) are one call; a node made by aten.detach is no call at all.
  for (Node* n : {region[0], region[1]}) {
    n->meta.mutable_extras().push_back({"original_aten", "\"aten.fancy.default\""});
    n->meta.set_seq_nr(7);
  }
  region[2]->meta.mutable_extras().push_back({"original_aten", "\"aten.detach.default\""});
  auto after = policy_for(joint, baseline->report);
  ASSERT_TRUE(after.ok()) << format_all(after.errors());
  EXPECT_EQ(after->call_count(), before->call_count() - 2);
  const PolicyCall& first = after->regions[0].calls[0];
  EXPECT_EQ(first.op, "aten.fancy.default");
  ASSERT_FALSE(first.nodes.empty());  // the first op's getitems between them join the call
  EXPECT_EQ(first.nodes.front(), region[0]->name());
  EXPECT_EQ(first.nodes.back(), region[1]->name());
  EXPECT_NE(std::find(after->unseen.begin(), after->unseen.end(), region[2]->name()),
            after->unseen.end());
  // Two consecutive calls of one op with no autograd node between them share a sequence number:
  // a second node that is the op itself starts a call of its own.
  auto pair =
      std::adjacent_find(region.begin() + 3, region.end(),
                         [](const Node* a, const Node* b) { return a->target() == b->target(); });
  ASSERT_NE(pair, region.end()) << "no two consecutive calls of one op in the region";
  for (Node* n : {pair[0], pair[1]}) {
    n->meta.mutable_extras().push_back(
        {"original_aten", "\"" + std::string(n->target().view()) + "\""});
    n->meta.set_seq_nr(9);
  }
  auto split = policy_for(joint, baseline->report);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->call_count(), after->call_count());
}

/// The joint and its printed text (a log's: tracebacks, no autograd sequence numbers).
std::vector<GraphModule> joint_and_its_text(const char* data) {
  auto loaded = load_graph_json(testing::data_path(data));
  EXPECT_TRUE(loaded.ok()) << format_all(loaded.errors());
  if (!loaded.ok()) return {};
  auto printed =
      parse_readable(print_readable(*loaded, PrintOptions::tlparse()).text, "<printed joint>");
  EXPECT_TRUE(printed.ok()) << format_all(printed.errors());
  if (!printed.ok()) return {};
  std::vector<GraphModule> both;
  both.push_back(std::move(*loaded));
  both.push_back(std::move(*printed));
  return both;
}

/// Under a policy that saves every call, the region nodes PyTorch tagged PREFER_RECOMPUTE are
/// the ones no policy decides: remat's unseen and remade nodes.
void expect_undecided_where_pytorch_tagged_prefer_recompute(const GraphModule& joint,
                                                            const RegionCalls& found) {
  std::set<std::string> undecided;
  for (const auto* list : {&found.unseen, &found.remade})
    for (const Node* n : *list) undecided.insert(n->name());
  for (const Node* n : joint.graph().nodes()) {
    if (n->op() != OpKind::CallFunction || !n->meta.ac_graph_id()) continue;
    bool pytorch_undecided = n->meta.recompute == CheckpointPolicy::PreferRecompute;
    EXPECT_EQ(undecided.contains(n->name()), pytorch_undecided) << n->name();
  }
}

/// Under python/tests/compile_models.py's parity_policy (MUST_SAVE for a call of even index among
/// its op's calls in the region, PREFER_SAVE for odd), every region node carries the tag of the
/// call remat reads for it, or PREFER_RECOMPUTE where no policy decides it.
void expect_the_parity_policys_tags(const GraphModule& joint, const RegionCalls& found) {
  std::unordered_map<const Node*, CheckpointPolicy> predicted;
  for (const RegionCalls::Call& c : found.calls)
    for (const Node* n : c.nodes)
      predicted[n] = c.index % 2 == 0 ? CheckpointPolicy::MustSave : CheckpointPolicy::PreferSave;
  for (const auto* list : {&found.unseen, &found.remade})
    for (const Node* n : *list) predicted[n] = CheckpointPolicy::PreferRecompute;
  for (const Node* n : joint.graph().nodes()) {
    if (n->op() != OpKind::CallFunction || !n->meta.ac_graph_id()) continue;
    auto p = predicted.find(n);
    ASSERT_NE(p, predicted.end()) << n->name() << " is read as no call, remade or unseen node";
    EXPECT_EQ(p->second, n->meta.recompute) << n->name();
  }
}

std::map<std::string, std::pair<std::string, int64_t>> calls_by_node(const RegionCalls& found) {
  std::map<std::string, std::pair<std::string, int64_t>> call_of;
  for (const RegionCalls::Call& c : found.calls)
    for (const Node* n : c.nodes) call_of[n->name()] = {c.op, c.index};
  return call_of;
}

using CallOf = std::map<std::string, std::pair<std::string, int64_t>>;

/// How many calls of each op each region makes, and the call (op, index) of each node.
struct CallsOf {
  std::map<std::pair<int64_t, std::string>, int64_t> count;  // by (region, op)
  std::map<std::string, int64_t> index;                      // by node
  CallOf call;                                               // by node: its (op, index)
};

CallsOf calls_of(const RegionCalls& found) {
  CallsOf out;
  for (const RegionCalls::Call& c : found.calls) {
    ++out.count[{c.region, c.op}];
    for (const Node* n : c.nodes) {
      out.index[n->name()] = c.index;
      out.call[n->name()] = {c.op, c.index};
    }
  }
  return out;
}

/// The calls remat reads off a joint PyTorch 2.13 made under parity_policy (tests/data/`data`) and
/// off its printed text, each reading checked against the tags PyTorch gave the nodes: per
/// reading, its name and its CallsOf.
std::vector<std::pair<std::string, CallsOf>> parity_joint_calls_of(const char* data) {
  std::vector<std::pair<std::string, CallsOf>> out;
  std::vector<GraphModule> joints = joint_and_its_text(data);
  EXPECT_EQ(joints.size(), 2u);
  for (size_t i = 0; i < joints.size(); ++i) {
    std::string reading = i == 0 ? "the graph" : "its printed text";
    SCOPED_TRACE(reading);
    RegionCalls found = region_calls(joints[i]);
    expect_the_parity_policys_tags(joints[i], found);
    out.emplace_back(reading, calls_of(found));
  }
  return out;
}

/// parity_joint_calls_of, each reading's (op, call index) by node.
std::vector<std::pair<std::string, CallOf>> parity_joint_calls(const char* data) {
  std::vector<std::pair<std::string, CallOf>> out;
  for (auto& [reading, calls] : parity_joint_calls_of(data)) out.emplace_back(reading, calls.call);
  return out;
}

// PyTorch 2.13's joint of two InPlaceBlocks (python/tests/compile_models.py: ConvBERT's
// `x += self.bias` then a transpose of x, `h += ...` on a Linear's output view, a masked_fill_ and
// an item assignment), each region under a policy that saves every call: the nodes PyTorch tagged
// PREFER_RECOMPUTE are the ones no policy decides. remat must find exactly those, from the graph
// (with autograd sequence numbers) and from its printed text (a log's: tracebacks only).
TEST(ReproducingPolicy, KnowsWhichRegionNodesNoPolicyDecidesInPyTorchsInPlaceJoint) {
  std::vector<GraphModule> joints = joint_and_its_text("torch-2.13/in_place_joint.json");
  ASSERT_EQ(joints.size(), 2u);
  for (const GraphModule* joint : {&joints[0], &joints[1]}) {
    SCOPED_TRACE(joint == &joints[0] ? "the graph" : "its printed text");
    RegionCalls found = region_calls(*joint);
    expect_undecided_where_pytorch_tagged_prefer_recompute(*joint, found);
    std::map<std::string, std::pair<std::string, int64_t>> call_of = calls_by_node(found);
    int64_t written_back = 0, replayed = 0;
    auto detach = [](const Node* n) { return n->target().view() == "aten.detach.default"; };
    for (const RegionCalls::Call& c : found.calls) {
      if (std::ranges::all_of(c.nodes, detach)) ++replayed;
      int64_t made = std::ranges::count_if(c.nodes, std::not_fn(detach));
      if (made > 1) written_back += made - 1;
    }
    // Per block: the transpose of `y` after `y += bias` is remade with the view of the Linear's
    // output it reads, and so is the slice of h after masked_fill_ (with h's view); `y += bias`
    // writes back through a view, `h += ...` and masked_fill_ through two views each, the item
    // assignment through a slice_scatter; autograd views the base again after each of the four
    // (after the item assignment, the replayed slice makes the detach that stands for the base).
    EXPECT_EQ(found.remade.size(), 2u * 4);
    EXPECT_EQ(written_back, 2 * 6);
    EXPECT_EQ(replayed, 2 * 4);
    // The remade transpose holds the call's place: the block's second transpose is call 1.
    EXPECT_EQ(call_of.at("transpose_1"), std::make_pair(std::string("aten.transpose.int"), 0L));
    EXPECT_EQ(call_of.at("transpose_2"), std::make_pair(std::string("aten.transpose.int"), 1L));
    EXPECT_EQ(call_of.at("add").first, "aten.add.Tensor");
  }
}

// PyTorch 2.13's joint of Swin-v2's continuous position bias (HiddenInPlace in
// python/tests/compile_models.py, under parity_policy): nn.ReLU(inplace=True) changes the first
// Linear's output view in place, which no line of the model shows. The write-back (`view_2`, of
// the base's shape) is the ReLU call's; autograd views the base again (a call whose node died);
// the changed view and the second Linear's view of it are made again by the detach selective
// checkpointing makes of that view call's output (`view_7`, `view_8`: PREFER_RECOMPUTE, and
// `view_8` holds the call's place; its own node died). Read alike from the graph and from its
// printed text, which has no autograd sequence numbers to tie the write-back to the ReLU.
TEST(ReproducingPolicy, ReadsAnInPlaceChangeThatNoLineOfTheModelShows) {
  for (const auto& [reading, call_of] :
       parity_joint_calls("torch-2.13/hidden_in_place_joint.json")) {
    SCOPED_TRACE(reading);
    const std::string view = "aten.view.default";
    EXPECT_EQ(call_of.at("view_1"), std::make_pair(view, 1L));
    EXPECT_EQ(call_of.at("view_2"), std::make_pair(std::string("aten.relu.default"), 0L));
    EXPECT_EQ(call_of.at("view_8"), std::make_pair(view, 3L));
    EXPECT_EQ(call_of.at("view_9"), std::make_pair(view, 4L));
    EXPECT_FALSE(call_of.contains("view_7"));
  }
}

// PyTorch 2.13's joint of GLM-4-MoE's group mask (GroupMasked in python/tests/compile_models.py,
// under parity_policy): after `mask.scatter_`, each call of `mask.unsqueeze(-1).expand(...)
// .reshape(...)` makes the chain so far again, and the detach of the last call's output makes all
// of it again once more (PREFER_RECOMPUTE). The unsqueeze and expand calls' own nodes died: they
// are calls all the same, and the unsqueeze after them is the region's second.
TEST(ReproducingPolicy, CountsTheViewCallsOfAChainMadeAgainAfterAnInPlaceChange) {
  for (const auto& [reading, call_of] : parity_joint_calls("torch-2.13/group_masked_joint.json")) {
    SCOPED_TRACE(reading);
    EXPECT_EQ(call_of.at("unsqueeze_4"), std::make_pair(std::string("aten.unsqueeze.default"), 1L));
    EXPECT_EQ(call_of.at("view_2"), std::make_pair(std::string("aten.view.default"), 1L));
    EXPECT_FALSE(call_of.contains("unsqueeze_3") || call_of.contains("expand_2"));
  }
}

// PyTorch 2.13's joint of HY-v4's attention keys (AssignedKeys in python/tests/compile_models.py,
// under parity_policy): `keys[..., :4] = keys[..., :4] * 2` changes a slice of the Linear's
// output view (the copy, not the mul that reads a slice first, is the line's in-place op);
// autograd views the slice and then, read again, the keys again from the base; matmul reads
// `keys.transpose(1, 2)`, and the detach of its view call's output makes the chain again from the
// write-back: the Linear's output view (`view_15`, no call's output: the view the change went
// through), then the transpose, expand and view (calls whose own nodes died; `view_16` holds the
// sixth view call's place).
TEST(ReproducingPolicy, TellsAViewTheChangeWentThroughFromACallsViewOfIt) {
  for (const auto& [reading, call_of] : parity_joint_calls("torch-2.13/assigned_keys_joint.json")) {
    SCOPED_TRACE(reading);
    EXPECT_EQ(call_of.at("view_16"), std::make_pair(std::string("aten.view.default"), 5L));
    EXPECT_EQ(call_of.at("transpose_4"), std::make_pair(std::string("aten.transpose.int"), 1L));
  }
}

// A policy module keys a call by the op as the joint shows it (its as_in_joint): PyTorch 2.13
// records a lifted constant's lift_fresh_copy as made by aten.lift_fresh (Falcon indexes with
// `[-2]`), which the module keys as lift_fresh_copy; so must remat.
TEST(ReproducingPolicy, KeysALiftedConstantAsThePolicyModuleDoes) {
  auto joint = load_graph_json(testing::data_path("torch-2.13/tensor_constants_joint.json"));
  ASSERT_TRUE(joint.ok()) << format_all(joint.errors());
  auto call_of = calls_by_node(region_calls(*joint));
  EXPECT_EQ(call_of.at("lift_fresh_copy_1"),
            std::make_pair(std::string("aten.lift_fresh_copy.default"), 0L));
}

CallsOf calls_of_text(const char* text) {
  auto joint = parse_readable(text, "<numbering>");
  EXPECT_TRUE(joint.ok()) << format_all(joint.errors());
  return joint.ok() ? calls_of(region_calls(*joint)) : CallsOf{};
}

// Calls whose every node died leave only gaps in FX's numbering. Each region of a run calls an op
// equally often, so leads and trails with as many dead calls: Mamba's scan drops a `cat` and a
// `stack` at each region's start. The `cat` the backward makes right after the second region's
// (cat_4) shows that its dead calls lead; the `stack` and `sum` gaps could lead or trail, and take
// the side the `cat`s show. The code before the first region made the `add`s that add_3 skipped.
TEST(ReproducingPolicy, CountsTheCallsThatDiedBeforeAnOpsFirstNodeInARegion) {
  CallsOf calls = calls_of_text(R"(class joint_graph(torch.nn.Module):
    def forward(self, primals_1: "f32[4]", tangents_1: "f32[4]"):
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        add_3: "f32[4]" = torch.ops.aten.add.Tensor(primals_1, primals_1)
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        cat_1: "f32[8]" = torch.ops.aten.cat.default([add_3, add_3])
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        stack_1: "f32[2, 8]" = torch.ops.aten.stack.default([cat_1, cat_1])
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        sum_2: "f32[8]" = torch.ops.aten.sum.dim_IntList(stack_1, [0])
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        cat_3: "f32[16]" = torch.ops.aten.cat.default([sum_2, sum_2])
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        stack_3: "f32[2, 16]" = torch.ops.aten.stack.default([cat_3, cat_3])
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        sum_4: "f32[16]" = torch.ops.aten.sum.dim_IntList(stack_3, [0])
        cat_4: "f32[8]" = torch.ops.aten.cat.default([tangents_1, primals_1])
        return (sum_4, cat_4)
)");
  for (const char* node : {"cat_1", "cat_3", "stack_1", "stack_3"})
    EXPECT_EQ(calls.index.at(node), 1) << node;
  // (A builtin's first node is `sum_1`: the gap before sum_2 is one call.)
  EXPECT_EQ(calls.index.at("sum_2"), 1);
  EXPECT_EQ(calls.index.at("sum_4"), 1);
  EXPECT_EQ(calls.index.at("add_3"), 0);
  EXPECT_EQ(calls.count.at({2, "aten.cat.default"}), 2);
}

// Bailing-hybrid's and Kimi-linear's loops update their state once more than they read it: each
// region trails with a dead `bmm` and `exp`, and RWKV's with two `clone`s. The first bmm and
// clone of the first region are the first FX numbered, so their gaps trail; those of the `exp`s
// could lead or trail, and take the side the others show. A region that runs other
// code (fewer nodes of the op: a dense first layer) trails with what was skipped after it.
TEST(ReproducingPolicy, CountsTheCallsThatDiedAfterAnOpsLastNodeInARegion) {
  CallsOf calls = calls_of_text(R"(class joint_graph(torch.nn.Module):
    def forward(self, primals_1: "f32[2, 4, 4]", tangents_1: "f32[2, 4, 4]"):
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        exp_3: "f32[2, 4, 4]" = torch.ops.aten.exp.default(primals_1)
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        clone: "f32[2, 4, 4]" = torch.ops.aten.clone.default(exp_3)
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        bmm: "f32[2, 4, 4]" = torch.ops.aten.bmm.default(clone, clone)
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        exp_5: "f32[2, 4, 4]" = torch.ops.aten.exp.default(bmm)
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        clone_3: "f32[2, 4, 4]" = torch.ops.aten.clone.default(exp_5)
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        bmm_2: "f32[2, 4, 4]" = torch.ops.aten.bmm.default(clone_3, clone_3)
        # ac_graph_id: 3 - PREFER_RECOMPUTE
        exp_7: "f32[2, 4, 4]" = torch.ops.aten.exp.default(bmm_2)
        # ac_graph_id: 3 - PREFER_RECOMPUTE
        exp_8: "f32[2, 4, 4]" = torch.ops.aten.exp.default(exp_7)
        # ac_graph_id: 3 - PREFER_RECOMPUTE
        clone_6: "f32[2, 4, 4]" = torch.ops.aten.clone.default(exp_8)
        # ac_graph_id: 3 - PREFER_RECOMPUTE
        bmm_4: "f32[2, 4, 4]" = torch.ops.aten.bmm.default(clone_6, clone_6)
        bmm_6: "f32[2, 4, 4]" = torch.ops.aten.bmm.default(tangents_1, primals_1)
        exp_9: "f32[2, 4, 4]" = torch.ops.aten.exp.default(bmm_6)
        return (bmm_4, exp_9)
)");
  for (const char* node :
       {"exp_3", "exp_5", "exp_7", "clone", "clone_3", "clone_6", "bmm", "bmm_2", "bmm_4"})
    EXPECT_EQ(calls.index.at(node), 0) << node;
  EXPECT_EQ(calls.index.at("exp_8"), 1);
  for (int64_t region : {1, 2, 3}) {
    SCOPED_TRACE(region);
    EXPECT_EQ(calls.count.at({region, "aten.bmm.default"}), 2);
    EXPECT_EQ(calls.count.at({region, "aten.clone.default"}), 3);
  }
  EXPECT_EQ(calls.count.at({1, "aten.exp.default"}), 2);
  EXPECT_EQ(calls.count.at({2, "aten.exp.default"}), 2);
  // The third region's two exps are other code; nothing was skipped after them.
  EXPECT_EQ(calls.count.at({3, "aten.exp.default"}), 2);
}

// Pegasus-X's last encoder layer computes the global tokens' branch and reads none of it: that
// region makes fewer nodes of some ops than the layer before it. Where the numbers it skipped lie
// before its first node of an op (the `exp`s), the dropped calls lead; where they lie after its
// last (the `mm`), they trail; the decoder region after them makes fewer `mm`s too, but the gap
// before it is the encoder layer's.
TEST(ReproducingPolicy, CountsTheCallsARegionDropsWhereTheOthersMakeThem) {
  CallsOf calls = calls_of_text(R"(class joint_graph(torch.nn.Module):
    def forward(self, primals_1: "f32[4, 4]", tangents_1: "f32[4, 4]"):
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        exp: "f32[4, 4]" = torch.ops.aten.exp.default(primals_1)
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        exp_1: "f32[4, 4]" = torch.ops.aten.exp.default(exp)
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        mm: "f32[4, 4]" = torch.ops.aten.mm.default(exp_1, exp_1)
        # ac_graph_id: 1 - PREFER_RECOMPUTE
        mm_1: "f32[4, 4]" = torch.ops.aten.mm.default(mm, mm)
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        exp_3: "f32[4, 4]" = torch.ops.aten.exp.default(mm_1)
        # ac_graph_id: 2 - PREFER_RECOMPUTE
        mm_2: "f32[4, 4]" = torch.ops.aten.mm.default(exp_3, exp_3)
        # ac_graph_id: 3 - PREFER_RECOMPUTE
        exp_4: "f32[4, 4]" = torch.ops.aten.exp.default(mm_2)
        # ac_graph_id: 3 - PREFER_RECOMPUTE
        exp_5: "f32[4, 4]" = torch.ops.aten.exp.default(exp_4)
        # ac_graph_id: 3 - PREFER_RECOMPUTE
        mm_4: "f32[4, 4]" = torch.ops.aten.mm.default(exp_5, exp_5)
        mm_5: "f32[4, 4]" = torch.ops.aten.mm.default(tangents_1, primals_1)
        return (mm_4, mm_5)
)");
  EXPECT_EQ(calls.index.at("exp_3"), 1);
  EXPECT_EQ(calls.index.at("mm_2"), 0);
  EXPECT_EQ(calls.index.at("exp_4"), 0);
  EXPECT_EQ(calls.index.at("mm_4"), 0);
  EXPECT_EQ(calls.count.at({2, "aten.exp.default"}), 2);
  EXPECT_EQ(calls.count.at({2, "aten.mm.default"}), 2);
  EXPECT_EQ(calls.count.at({3, "aten.mm.default"}), 1);
}

// PyTorch 2.13's joint of Bailing-hybrid's and Kimi-linear's chunked delta rule (ChunkedDelta in
// python/tests/compile_models.py: two layers, each under parity_policy), from the graph and from
// its printed text. Each layer starts with a line nobody reads (`h[..., 0].reshape(...)`: a
// select and a view call whose nodes died); its rows loop reads `attn[..., i, :i]` of the next i
// after each assignment (the same views of other indices: calls, not the changed view made
// again); its last state update is dead (a bmm, an exp, two expands, three views and a transpose
// after the layer's last live ones); and its output, assigned chunk by chunk, is read through a
// reshape, a slice and a transpose that functionalization makes again for every later call (the
// reshape's view three times), so only the transpose's call holds a node (`transpose_4`, remade).
TEST(ReproducingPolicy, CountsTheCallsOfAChunkedDeltaRuleAsPyTorchMadeThem) {
  for (const auto& [reading, calls] :
       parity_joint_calls_of("torch-2.13/chunked_delta_joint.json")) {
    SCOPED_TRACE(reading);
    EXPECT_EQ(calls.index.at("select_1"), 1);
    EXPECT_EQ(calls.index.at("select_35"), 1);
    EXPECT_EQ(calls.index.at("view_4"), 4);
    EXPECT_EQ(calls.index.at("transpose_4"), 3);
    EXPECT_EQ(calls.index.at("transpose_5"), 4);
    // PyTorch's own counts of each layer's calls (compile_models.ChunkedDelta under a policy
    // that counts them).
    for (int64_t region : {3, 4}) {
      SCOPED_TRACE(region);
      EXPECT_EQ(calls.count.at({region, "aten.bmm.default"}), 6);
      EXPECT_EQ(calls.count.at({region, "aten.exp.default"}), 2);
      EXPECT_EQ(calls.count.at({region, "aten.expand.default"}), 12);
      EXPECT_EQ(calls.count.at({region, "aten.transpose.int"}), 5);
      EXPECT_EQ(calls.count.at({region, "aten.unsqueeze.default"}), 4);
    }
    EXPECT_EQ(calls.count.at({3, "aten.view.default"}), 23);
    EXPECT_EQ(calls.count.at({4, "aten.view.default"}), 21);
  }
}

// transformers' Longformer self-attention, two layers under parity_policy
// (compile_models.SlidingChunks). `query_vectors /= ...` changes the query in place (in the first
// layer the linear's output itself, in the second a view of it), so every view the chain of calls
// after it makes (`view`, `transpose(0, 1)`, `transpose(1, 2)`, the reshape, `_chunk`'s view and
// as_strided, einsum's unsqueeze and permutes) is stale: functionalization makes it again from the
// changed tensor when selective checkpointing detaches the call's output. Only the last chain
// lives (einsum's clone reads it); the calls before it died between the key's live ones, which
// FX's numbering places. Then the scores, assigned diagonal by diagonal into new zeros, are viewed
// and transposed (`input_tensor`) and masked by item assignments to slices of it: each slice makes
// `input_tensor`'s views again (remakes of the calls that made it, not calls), autograd views it
// again where the model slices it after an assignment, and `attn_scores += diagonal_mask` brings
// both views up to date in its own call (their nodes take its tag), after autograd viewed the
// changed one again. Every node reads as PyTorch tagged it.
TEST(ReproducingPolicy, ReadsTheCallsOfLongformersSlidingChunksAsPyTorchMadeThem) {
  for (const auto& [reading, calls] :
       parity_joint_calls_of("torch-2.13/sliding_chunks_joint.json")) {
    SCOPED_TRACE(reading);
    EXPECT_EQ(calls.index.at("view_3"), 1);  // the key's view, after the query's (dead)
    EXPECT_EQ(calls.index.at("transpose_9"), 4);
    EXPECT_EQ(calls.index.at("as_strided_2"), 1);
    // The second layer's key view: after the linears' six, autograd's view of the changed query
    // again and the query's (both dead).
    EXPECT_EQ(calls.index.at("view_118"), 8);
    EXPECT_EQ(calls.index.at("transpose_47"), 9);  // after input_tensor's, made once (call 5)
    EXPECT_EQ(calls.index.at("add_5"), calls.index.at("view_87"));  // attn_scores, made again
    // PyTorch's own counts of the first layer's calls (compile_models.SlidingChunks under a
    // policy that counts them).
    EXPECT_EQ(calls.count.at({3, "aten.transpose.int"}), 20);
    EXPECT_EQ(calls.count.at({3, "aten.view.default"}), 30);
    EXPECT_EQ(calls.count.at({3, "aten.slice.Tensor"}), 59);
  }
}

TEST(ReproducingPolicy, RefusesAJointWithoutRegionsAndNamesItDoesNotHave) {
  GraphModule plain = zoo_joint({"mlp", "none"});
  auto p = partition_joint(plain, Strategy::MinCut);
  ASSERT_TRUE(p.ok());
  auto none = policy_for(plain, p->report);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(format_all(none.errors()).find("no checkpoint region"), std::string::npos);
  GraphModule joint = zoo_joint({"mlp", "each-layer"});
  auto unknown = reproducing_policy(joint, {"no_such_node"}, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(format_all(unknown.errors()).find("no_such_node"), std::string::npos);
}

TEST(PolicyModule, WritesTheTableAndTheContextFn) {
  GraphModule joint = zoo_joint({"mlp", "each-layer", "save-matmuls"});
  auto p = partition_joint(joint, Strategy::MinCut);
  ASSERT_TRUE(p.ok());
  auto policy = policy_for(joint, p->report);
  ASSERT_TRUE(policy.ok());
  testing::expect_golden("policy/mlp_each_layer_save_matmuls.py",
                         policy_module_text(*policy, "remat's min-cut (the zoo's mlp)"));
}

}  // namespace
}  // namespace remat::partition
