// The min-cut solver: PyTorch's flow files reproduced exactly, both Boost algorithms agreeing,
// brute force on small random networks, unbounded cuts reported with their path.
#include <gtest/gtest.h>

#include <absl/container/flat_hash_map.h>

#include <random>
#include <set>

#include "remat/io/flow_network.h"
#include "remat/partition/min_cut.h"
#include "remat/support/file_io.h"
#include "testing/golden.h"

namespace remat::partition {
namespace {

TEST(MinCut, ReproducesEverySharedFlowFile) {
  for (const char* name :
       {"ckpt_sin_mm_sigmoid_mincut_flow.json", "ckpt_sin_mm_sigmoid_mincut_inductor_flow.json",
        "mlp_relu_mincut_flow.json", "mlp_relu_mincut_inductor_flow.json"}) {
    auto text = read_file(testing::data_path(std::string("torch-1.13/") + name));
    ASSERT_TRUE(text.ok()) << name;
    auto net = read_flow_json(*text, name);
    ASSERT_TRUE(net.ok()) << name;
    FlowGraph g;
    absl::flat_hash_map<std::string, int> index;
    for (const std::string& v : net->nodes) index.emplace(v, g.add_vertex(v));
    for (const FlowEdge& e : net->edges) g.add_edge(index.at(e.from), index.at(e.to), e.capacity);
    for (auto algorithm : {MaxFlowAlgorithm::PushRelabel, MaxFlowAlgorithm::BoykovKolmogorov}) {
      MinCut cut = solve_min_cut(g, index.at(net->source), index.at(net->sink), algorithm);
      EXPECT_EQ(cut.value, *net->cut_value) << name;
      std::set<std::string> side, expected(net->source_side->begin(), net->source_side->end());
      for (int v = 0; v < g.num_vertices(); ++v) {
        if (cut.source_side[v]) side.insert(g.names()[v]);
      }
      EXPECT_EQ(side, expected) << name;
      std::set<std::pair<std::string, std::string>> edges,
          expected_edges(net->cut_edges.begin(), net->cut_edges.end());
      for (int e : cut.cut_edges)
        edges.emplace(g.names()[g.edges()[e].from], g.names()[g.edges()[e].to]);
      EXPECT_EQ(edges, expected_edges) << name;
    }
  }
}

// Brute force: the minimum cut value and the maximal minimum source side (the union of all
// minimum source sides, itself minimum).
struct BruteForce {
  double value;
  uint32_t side;
};
BruteForce brute_force(const FlowGraph& g, int s, int t) {
  int n = g.num_vertices();
  BruteForce best{std::numeric_limits<double>::infinity(), 0};
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (!(mask >> s & 1) || (mask >> t & 1)) continue;
    double value = 0;
    for (const auto& e : g.edges()) {
      if ((mask >> e.from & 1) && !(mask >> e.to & 1)) value += e.capacity;
    }
    if (value < best.value)
      best = {value, mask};
    else if (value == best.value)
      best.side |= mask;
  }
  return best;
}

TEST(MinCut, MatchesBruteForceOnRandomNetworks) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    FlowGraph g;
    int n = std::uniform_int_distribution<int>(2, 9)(rng);
    for (int v = 0; v < n; ++v) g.add_vertex("v" + std::to_string(v));
    int m = std::uniform_int_distribution<int>(1, 3 * n)(rng);
    for (int i = 0; i < m; ++i) {
      int a = std::uniform_int_distribution<int>(0, n - 1)(rng),
          b = std::uniform_int_distribution<int>(0, n - 1)(rng);
      if (a == b) continue;
      // Ties are the point: small capacities, some infinite.
      double c = std::bernoulli_distribution(0.15)(rng)
                     ? kInfiniteCapacity
                     : std::uniform_int_distribution<int>(0, 4)(rng);
      g.add_edge(a, b, c);
    }
    BruteForce want = brute_force(g, 0, n - 1);
    for (auto algorithm : {MaxFlowAlgorithm::PushRelabel, MaxFlowAlgorithm::BoykovKolmogorov}) {
      MinCut cut = solve_min_cut(g, 0, n - 1, algorithm);
      EXPECT_EQ(cut.value, want.value) << "trial " << trial;
      if (cut.unbounded()) continue;
      uint32_t side = 0;
      for (int v = 0; v < n; ++v) side |= cut.source_side[v] ? (1u << v) : 0;
      EXPECT_EQ(side, want.side) << "trial " << trial;
    }
  }
}

TEST(MinCut, AnAllInfinitePathIsReportedNotSolved) {
  FlowGraph g;
  int s = g.add_vertex("source"), a = g.add_vertex("a_in"), b = g.add_vertex("a_out"),
      t = g.add_vertex("sink");
  g.add_edge(s, a, kInfiniteCapacity);
  g.add_edge(a, b, kInfiniteCapacity);
  g.add_edge(b, t, kInfiniteCapacity);
  g.add_edge(s, t, 5);
  MinCut cut = solve_min_cut(g, s, t);
  EXPECT_TRUE(cut.unbounded());
  EXPECT_TRUE(std::isinf(cut.value));
  EXPECT_EQ(cut.infinite_path, (std::vector<int>{s, a, b, t}));
}

}  // namespace
}  // namespace remat::partition
