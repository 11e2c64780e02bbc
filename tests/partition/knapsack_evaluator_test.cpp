// KnapsackEvaluator: docs/spec/partitioning.md §10 item 25 (test_ac_knapsack.py's five-node chain),
// the item graph "with larger context", the knee budget, and the dynamic-budget partition.
#include <gtest/gtest.h>

#include "remat/partition/knapsack_evaluator.h"
#include "remat/partition/min_cut_partition.h"
#include "remat/partition/validity.h"
#include "remat/trace/tensor.h"
#include "testing/traced_joint.h"

namespace remat::partition {
namespace {

// node1 -> node2 -> node3 -> node4 -> node5 -> output, node1 -> output; the items are node1,
// node2 and node5.
GraphModule chain() {
  GraphModule m;
  Graph& g = m.graph();
  Node* x = g.placeholder("x");
  Node* prev = x;
  std::vector<Node*> nodes;
  for (int i = 1; i <= 5; ++i) {
    prev = g.call_function("aten.sin.default", {Argument::node(i == 1 ? x : prev)}, {},
                           "node" + std::to_string(i));
    nodes.push_back(prev);
  }
  g.output(Argument::tuple({Argument::node(nodes[4]), Argument::node(nodes[0])}));
  return m;
}

KnapsackEvaluator chain_evaluator(const GraphModule& m) {
  const Graph& g = m.graph();
  return KnapsackEvaluator(knapsack_items(g, {g.find("node1"), g.find("node2"), g.find("node5")},
                                          {0.1, 0.2, 0.2}, {100, 50, 51}));
}

TEST(KnapsackEvaluator, ItemGraphLinksItemsThroughOtherNodes) {
  GraphModule m = chain();
  const Graph& g = m.graph();
  KnapsackItems items = knapsack_items(g, {g.find("node1"), g.find("node2"), g.find("node5")},
                                       {0.1, 0.2, 0.2}, {100, 50, 51});
  EXPECT_EQ(items.edges, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}));
}

TEST(KnapsackEvaluator, SavedMemoryAndRecomputeRuntime) {
  // §10.25: saved {0}: peak 0.1, recompute runtime 101.
  GraphModule m = chain();
  auto e = chain_evaluator(m).evaluate({0}, {1, 2});
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(e->peak_memory, 0.1);
  EXPECT_DOUBLE_EQ(e->recomputation_runtime, 101.0);
  EXPECT_DOUBLE_EQ(e->non_ac_peak_memory, 0.5);
  EXPECT_DOUBLE_EQ(e->theoretical_max_runtime, 201.0);
  EXPECT_FALSE(chain_evaluator(m).evaluate({0}, {1}).ok());  // item 2 unaccounted for
  EXPECT_FALSE(chain_evaluator(m).evaluate({0, 1}, {1, 2}).ok());
}

TEST(KnapsackEvaluator, SimulatedBackwardPeak) {
  // §10.25: 0.5 when simulating the backward, step by step as PyTorch's test lists them.
  GraphModule m = chain();
  KnapsackEvaluator ev = chain_evaluator(m);
  auto e = ev.evaluate({0}, {1, 2}, /*simulate_backward=*/true);
  ASSERT_TRUE(e.ok());
  EXPECT_NEAR(e->peak_memory, 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(e->recomputation_runtime, 101.0);
  std::vector<MemoryStep> steps = ev.backward_memory({true, false, false}, 0.1);
  std::vector<std::pair<double, std::string>> want = {
      {0.1, "Initial Peak/Current Memory"},
      {0.3, "Recomputing Node: node5"},
      {0.5, "Recomputing Predecessor of node5: node2"},
      {0.3, "Dropping Node: node5"},
      {0.1, "Dropping Node(already saved): node2"},
      {0.0, "Dropping Node(already saved): node1"},
  };
  ASSERT_EQ(steps.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(steps[i].memory, want[i].first, 1e-12) << i;
    EXPECT_EQ(steps[i].what, want[i].second) << i;
  }
}

TEST(KnapsackEvaluator, KneePointOfTheDpSweep) {
  // Capacities 0.1 .. 1.0 of the chain's items (total memory 0.5): saving node1 alone (0.1)
  // recomputes 101 of 201; node1 + node5 (0.3) recomputes 50; all (0.5) nothing. Scaled to
  // [0, 1] over the sweep, (runtime, memory) is (1, 0), (0.495, 0.5) and (0, 1): the middle one
  // is nearest the origin, first reached at capacity 0.3.
  GraphModule m = chain();
  double knee = chain_evaluator(m).knee_point_budget(dp_knapsack, 1.0, 0.1, 10);
  EXPECT_NEAR(knee, 0.3, 1e-12);
  // One point only varies in neither direction: the maximum budget.
  EXPECT_EQ(chain_evaluator(m).knee_point_budget(dp_knapsack, 0.05, 0.01, 5), 0.05);
  EXPECT_EQ(linspace(0.1, 1.0, 10).back(), 1.0);
  EXPECT_EQ(linspace(0.1, 1.0, 10).size(), 10u);
}

TEST(KnapsackEvaluator, DynamicBudgetPartitionStaysWithinTheBudget) {
  using namespace remat::trace;
  GraphModule joint = testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {512, 512}, DType::Float32, true);
    std::vector<Tensor> ws;
    for (int i = 0; i < 5; ++i)
      ws.push_back(t.input("w" + std::to_string(i), {512, 512}, DType::Float32, true));
    x = cos(x);
    for (const Tensor& w : ws) x = cos(mm(x, w));
    return std::vector<Tensor>{x.sum()};
  });
  MinCutConfig dynamic;
  dynamic.memory_budget = 0.5;
  dynamic.knapsack = KnapsackSolver::Dynamic;
  auto p = min_cut_partition(joint, dynamic);
  ASSERT_TRUE(p.ok()) << format_all(p.errors());
  EXPECT_TRUE(check_validity(joint, p->graphs, p->report).empty());
  MinCutConfig plain = dynamic;
  plain.knapsack = KnapsackSolver::Dp;
  auto q = min_cut_partition(joint, plain);
  ASSERT_TRUE(q.ok());
  // The knee is at or below the requested budget: never more memory than the plain DP.
  EXPECT_LE(p->report.activation_bytes, q->report.activation_bytes);
  bool noted = false;
  for (const std::string& n : p->report.notes)
    noted = noted || n.starts_with("dynamic memory budget");
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace remat::partition
