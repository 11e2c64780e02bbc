#include "remat/partition/min_cut.h"

#include <cmath>
#include <deque>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include "remat/support/assert.h"

namespace remat::partition {
namespace {

using Capacity = int64_t;
using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using Network = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS,
    boost::property<boost::vertex_index_t, int64_t,
                    boost::property<boost::vertex_color_t, boost::default_color_type,
                                    boost::property<boost::vertex_distance_t, int64_t,
                                                    boost::property<boost::vertex_predecessor_t, Traits::edge_descriptor>>>>,
    boost::property<boost::edge_capacity_t, Capacity,
                    boost::property<boost::edge_residual_capacity_t, Capacity,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

// An all-infinite source-sink path, or empty.
std::vector<int> infinite_path(const FlowGraph& g, int source, int sink) {
  std::vector<std::vector<int>> out(g.num_vertices());
  for (const auto& e : g.edges()) {
    if (std::isinf(e.capacity)) out[e.from].push_back(e.to);
  }
  std::vector<int> parent(g.num_vertices(), -2);
  std::deque<int> queue = {source};
  parent[source] = -1;
  while (!queue.empty()) {
    int u = queue.front();
    queue.pop_front();
    if (u == sink) break;
    for (int v : out[u]) {
      if (parent[v] != -2) continue;
      parent[v] = u;
      queue.push_back(v);
    }
  }
  if (parent[sink] == -2) return {};
  std::vector<int> path;
  for (int v = sink; v != -1; v = parent[v]) path.insert(path.begin(), v);
  return path;
}

}  // namespace

int FlowGraph::add_vertex(std::string name) {
  names_.push_back(std::move(name));
  return static_cast<int>(names_.size()) - 1;
}

void FlowGraph::add_edge(int from, int to, double capacity) {
  REMAT_ASSERT(from >= 0 && from < num_vertices() && to >= 0 && to < num_vertices()) << "edge to an unknown vertex";
  REMAT_ASSERT(capacity >= 0) << "negative capacity";
  edges_.push_back({from, to, capacity});
}

MinCut solve_min_cut(const FlowGraph& graph, int source, int sink, MaxFlowAlgorithm algorithm) {
  MinCut result;
  int n = graph.num_vertices();
  result.source_side.assign(n, false);
  result.infinite_path = infinite_path(graph, source, sink);
  if (result.unbounded()) {
    result.value = kInfiniteCapacity;
    return result;
  }
  // Infinite edges become one capacity no finite cut reaches, as networkx substitutes them.
  Capacity finite_total = 0;
  for (const auto& e : graph.edges()) {
    if (!std::isinf(e.capacity)) finite_total += static_cast<Capacity>(std::llround(e.capacity));
  }
  Capacity infinity = finite_total > 0 ? 3 * finite_total + 1 : 1;

  Network net(n);
  auto capacity = boost::get(boost::edge_capacity, net);
  auto residual = boost::get(boost::edge_residual_capacity, net);
  auto reverse = boost::get(boost::edge_reverse, net);
  std::vector<Traits::edge_descriptor> forward(graph.edges().size());
  for (size_t i = 0; i < graph.edges().size(); ++i) {
    const auto& e = graph.edges()[i];
    if (e.from == e.to) continue;  // self-loops carry no flow
    auto [fe, ok1] = boost::add_edge(e.from, e.to, net);
    auto [re, ok2] = boost::add_edge(e.to, e.from, net);
    (void)ok1;
    (void)ok2;
    capacity[fe] = std::isinf(e.capacity) ? infinity : static_cast<Capacity>(std::llround(e.capacity));
    capacity[re] = 0;
    reverse[fe] = re;
    reverse[re] = fe;
    forward[i] = fe;
  }
  Capacity flow = algorithm == MaxFlowAlgorithm::PushRelabel
                      ? boost::push_relabel_max_flow(net, source, sink)
                      : boost::boykov_kolmogorov_max_flow(net, source, sink);
  result.value = static_cast<double>(flow);

  // The sink side: every vertex with a residual path to the sink.
  std::vector<std::vector<int>> into(n);  // residual edges u -> v, indexed by v
  boost::graph_traits<Network>::edge_iterator it, end;
  for (std::tie(it, end) = boost::edges(net); it != end; ++it) {
    if (residual[*it] > 0) into[boost::target(*it, net)].push_back(static_cast<int>(boost::source(*it, net)));
  }
  std::vector<bool> sink_side(n, false);
  std::deque<int> queue = {sink};
  sink_side[sink] = true;
  while (!queue.empty()) {
    int v = queue.front();
    queue.pop_front();
    for (int u : into[v]) {
      if (sink_side[u]) continue;
      sink_side[u] = true;
      queue.push_back(u);
    }
  }
  for (int v = 0; v < n; ++v) result.source_side[v] = !sink_side[v];
  for (size_t i = 0; i < graph.edges().size(); ++i) {
    const auto& e = graph.edges()[i];
    if (result.source_side[e.from] && !result.source_side[e.to]) result.cut_edges.push_back(static_cast<int>(i));
  }
  return result;
}

}  // namespace remat::partition
