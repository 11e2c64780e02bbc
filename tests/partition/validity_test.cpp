// Property: on 10,000 random tagged joint graphs (random ops, tuple-producing ones included, random
// checkpoint regions and SAC policies, nested regions), both partitioners keep every invariant of
// check_validity, min-cut under memory budgets from 1 down to 0 (every stage of
// docs/spec/partitioning.md §7.2).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "remat/autodiff/joint_graph.h"
#include "remat/io/graph_json.h"
#include "remat/partition/default_partition.h"
#include "remat/partition/min_cut_partition.h"
#include "remat/partition/validity.h"
#include "remat/trace/checkpoint.h"

namespace remat::partition {
namespace {

using namespace remat::trace;

// A random program over 4x4 tensors.
GraphModule random_joint(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Tracer tracer;
  std::vector<Tensor> values;
  int inputs = pick(1, 3);
  for (int i = 0; i < inputs; ++i)
    values.push_back(
        tracer.input("x" + std::to_string(i), {4, 4}, DType::Float32, i == 0 || pick(0, 1)));
  if (pick(0, 1)) values.push_back(tracer.parameter("w", {4, 4}));
  std::vector<std::unique_ptr<trace::detail::RegionGuard>> regions;
  int ops = pick(2, 24);
  for (int i = 0; i < ops; ++i) {
    if (pick(0, 5) == 0 && regions.size() < 2) {
      SacPolicy policy = SacPolicy::recompute_all();
      switch (pick(0, 3)) {
        case 1:
          policy = SacPolicy::save_ops({"aten.mm.default"});
          break;
        case 2: {
          uint32_t salt = static_cast<uint32_t>(rng());
          policy = SacPolicy::from_fn([salt](const SacContext& c) {
            static constexpr CheckpointPolicy kAll[] = {
                CheckpointPolicy::MustSave, CheckpointPolicy::PreferSave,
                CheckpointPolicy::MustRecompute, CheckpointPolicy::PreferRecompute};
            return kAll[(std::hash<std::string_view>()(c.target) ^ salt ^
                         static_cast<uint32_t>(c.call_index)) %
                        4];
          });
          break;
        }
        case 3:
          policy = SacPolicy::from_bool([](const SacContext& c) { return c.call_index % 2 == 0; });
          break;
        default:
          break;
      }
      regions.push_back(std::make_unique<trace::detail::RegionGuard>(
          std::make_shared<const SacPolicy>(policy), std::source_location::current()));
    } else if (!regions.empty() && pick(0, 4) == 0) {
      regions.pop_back();
    }
    Tensor a = values[pick(0, static_cast<int>(values.size()) - 1)];
    Tensor b = values[pick(0, static_cast<int>(values.size()) - 1)];
    Tensor r;
    switch (pick(0, 12)) {
      case 0:
        r = sin(a);
        break;
      case 1:
        r = cos(a);
        break;
      case 2:
        r = relu(a);
        break;
      case 3:
        r = sigmoid(a);
        break;
      case 4:
        r = tanh(a);
        break;
      case 5:
        r = a + b;
        break;
      case 6:
        r = a * b;
        break;
      case 7:
        r = mm(a, b);
        break;
      case 8:
        r = a.t();
        break;
      case 9:
        r = dropout(a, 0.25);
        break;
      case 10:
        r = gelu(a);
        break;
      case 11:
        r = layer_norm(a, {4});
        break;  // native_layer_norm: a tuple read through getitems
      default:
        r = a * 0.5;
        break;
    }
    values.push_back(r);
  }
  regions.clear();
  std::vector<Tensor> outputs = {values.back()};
  if (values.size() > 3 && pick(0, 1)) outputs.push_back(values[values.size() - 2]);
  tracer.output(outputs);
  GraphModule fwd = tracer.finish();
  auto joint = autodiff::build_joint_graph(fwd);
  EXPECT_TRUE(joint.ok()) << format_all(joint.errors());
  return joint.ok() ? std::move(*joint) : GraphModule{};
}

TEST(PartitionValidity, TenThousandRandomTaggedJointGraphs) {
  std::mt19937 rng(2026);
  static constexpr double kBudgets[] = {1, 1, 0.8, 0.5, 0.2, 0.05, 0};
  int partitions = 0, forward_only = 0, below_one = 0;
  std::map<PartitionStage, int> stages;
  for (int trial = 0; trial < 10'000; ++trial) {
    GraphModule joint = random_joint(rng);
    MinCutConfig config;
    config.memory_budget = kBudgets[rng() % std::size(kBudgets)];
    config.passes.verify_each = true;  // every pass before the cut leaves a well-formed graph
    if (!check_joint_shape(joint)) {
      // No output needs a gradient: AOTAutograd would build no joint, and neither partitioner
      // takes the graph.
      ++forward_only;
      auto mc = min_cut_partition(joint, config);
      ASSERT_FALSE(mc.ok()) << "trial " << trial;
      EXPECT_NE(format_all(mc.errors()).find("not a joint graph"), std::string::npos);
      ASSERT_FALSE(default_partition(joint).ok()) << "trial " << trial;
      continue;
    }
    auto mc = min_cut_partition(joint, config);
    ASSERT_TRUE(mc.ok()) << "trial " << trial << ": " << format_all(mc.errors())
                         << write_graph_json(joint);
    auto v = check_validity(joint, mc->graphs, mc->report);
    ASSERT_TRUE(v.empty()) << "trial " << trial << " min-cut, budget " << config.memory_budget
                           << ": " << v.front() << "\n"
                           << write_graph_json(joint);
    auto dp = default_partition(joint);
    ASSERT_TRUE(dp.ok()) << "trial " << trial << ": " << format_all(dp.errors())
                         << write_graph_json(joint);
    v = check_validity(joint, dp->graphs, dp->report);
    ASSERT_TRUE(v.empty()) << "trial " << trial << " default: " << v.front() << "\n"
                           << write_graph_json(joint);
    partitions += 2;
    below_one += config.memory_budget < 1;
    ++stages[mc->report.step];
  }
  EXPECT_EQ(partitions + 2 * forward_only, 20'000);
  EXPECT_GT(partitions, 18'000);  // the generator makes joint graphs, almost always
  EXPECT_GT(below_one, 5'000);
  for (PartitionStage s :
       {PartitionStage::Cut, PartitionStage::RelaxedBans, PartitionStage::Aggressive,
        PartitionStage::Knapsack, PartitionStage::InputsAndMustSave, PartitionStage::InputsOnly}) {
    EXPECT_GT(stages[s], 0) << "no random graph reached the stage '" << stage_name(s) << "'";
  }
}

TEST(PartitionValidity, TheCheckerCatchesViolations) {
  std::mt19937 rng(5);
  GraphModule joint;
  MinCutPartition p;
  // A graph whose backward reads a saved value.
  for (;;) {
    joint = random_joint(rng);
    auto mc = min_cut_partition(joint);
    ASSERT_TRUE(mc.ok());
    if (!mc->graphs.saved_values.empty() && !mc->report.banned.empty()) {
      p = std::move(*mc);
      break;
    }
  }
  ASSERT_TRUE(check_validity(joint, p.graphs, p.report).empty());
  // A backward input that nothing provides.
  Graph& bw = p.graphs.backward.graph();
  bw.set_insert_point(bw.placeholders().front());
  bw.create_node_exact(OpKind::Placeholder, InternedString("mystery"), "mystery");
  bw.set_insert_point(nullptr);
  auto v = check_validity(joint, p.graphs, p.report);
  ASSERT_FALSE(v.empty());
  EXPECT_NE(v.front().find("mystery"), std::string::npos);
}

}  // namespace
}  // namespace remat::partition
