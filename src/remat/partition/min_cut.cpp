#include "remat/partition/min_cut.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <boost/property_map/property_map.hpp>

#include "remat/support/assert.h"

namespace remat::partition {
namespace {

using Capacity = int64_t;
// Boost's compressed-sparse-row graph: a network of a million vertices is a few flat arrays
// (an adjacency_list allocated an edge vector per vertex: a third of solving a GPT-2 joint's
// network went to building and freeing it). Each edge remembers its position in the input.
struct EdgeInput {
  size_t index = 0;
};
using Network = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeInput>;
using Edge = boost::graph_traits<Network>::edge_descriptor;

/// Vertices in flat adjacency arrays: the targets of `u` are targets[offsets[u] .. offsets[u+1]).
struct Adjacency {
  std::vector<int> offsets, targets;
};

/// The adjacency of the edges `keep` accepts, from `from` to `to` (or reversed).
template <class Keep>
Adjacency adjacency(int num_vertices, size_t num_edges, Keep&& keep) {
  Adjacency a;
  a.offsets.assign(static_cast<size_t>(num_vertices) + 1, 0);
  for (size_t i = 0; i < num_edges; ++i)
    if (auto e = keep(i)) ++a.offsets[e->first + 1];
  for (int v = 0; v < num_vertices; ++v) a.offsets[v + 1] += a.offsets[v];
  a.targets.resize(static_cast<size_t>(a.offsets.back()));
  std::vector<int> fill(a.offsets.begin(), a.offsets.end() - 1);
  for (size_t i = 0; i < num_edges; ++i)
    if (auto e = keep(i)) a.targets[fill[e->first]++] = e->second;
  return a;
}

/// The vertices reached from `start` along `a`, breadth first; `parent` gets each one's
/// predecessor (-1 for `start`, -2 unreached). Stops early at `stop`.
void breadth_first(const Adjacency& a, int start, int stop, std::vector<int>& parent) {
  std::vector<int> queue = {start};
  parent[start] = -1;
  for (size_t head = 0; head < queue.size(); ++head) {
    int u = queue[head];
    if (u == stop) return;
    for (int k = a.offsets[u]; k < a.offsets[u + 1]; ++k) {
      int v = a.targets[k];
      if (parent[v] != -2) continue;
      parent[v] = u;
      queue.push_back(v);
    }
  }
}

// An all-infinite source-sink path, or empty.
std::vector<int> infinite_path(const FlowGraph& g, int source, int sink) {
  const auto& edges = g.edges();
  Adjacency infinite = adjacency(g.num_vertices(), edges.size(), [&](size_t i) {
    return std::isinf(edges[i].capacity) ? std::optional(std::pair(edges[i].from, edges[i].to))
                                         : std::nullopt;
  });
  std::vector<int> parent(g.num_vertices(), -2);
  breadth_first(infinite, source, sink, parent);
  if (parent[sink] == -2) return {};
  std::vector<int> path;
  for (int v = sink; v != -1; v = parent[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

int FlowGraph::add_vertex(std::string name) {
  names_.push_back(std::move(name));
  return static_cast<int>(names_.size()) - 1;
}

void FlowGraph::add_edge(int from, int to, double capacity) {
  REMAT_ASSERT(from >= 0 && from < num_vertices() && to >= 0 && to < num_vertices())
      << "edge to an unknown vertex";
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

  // Each edge and its reverse (capacity 0), self-loops left out: they carry no flow.
  const auto& edges = graph.edges();
  std::vector<std::pair<int, int>> pairs;
  std::vector<EdgeInput> inputs;
  pairs.reserve(2 * edges.size());
  inputs.reserve(2 * edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    if (edges[i].from == edges[i].to) continue;
    pairs.emplace_back(edges[i].from, edges[i].to);
    inputs.push_back({2 * i});
    pairs.emplace_back(edges[i].to, edges[i].from);
    inputs.push_back({2 * i + 1});
  }
  Network net(boost::edges_are_unsorted_multi_pass, pairs.begin(), pairs.end(), inputs.begin(),
              static_cast<size_t>(n));
  auto edge_index = boost::get(boost::edge_index, net);
  auto index_of = [&](Edge e) { return boost::get(boost::edge_index, net, e); };
  size_t num_net_edges = boost::num_edges(net);
  std::vector<Edge> by_input(2 * edges.size());
  boost::graph_traits<Network>::edge_iterator it, end;
  for (std::tie(it, end) = boost::edges(net); it != end; ++it) by_input[net[*it].index] = *it;
  std::vector<Capacity> capacity(num_net_edges, 0), residual(num_net_edges, 0);
  std::vector<Edge> reverse(num_net_edges);
  for (size_t i = 0; i < edges.size(); ++i) {
    if (edges[i].from == edges[i].to) continue;
    Edge fe = by_input[2 * i], re = by_input[2 * i + 1];
    capacity[index_of(fe)] = std::isinf(edges[i].capacity)
                                 ? infinity
                                 : static_cast<Capacity>(std::llround(edges[i].capacity));
    reverse[index_of(fe)] = re;
    reverse[index_of(re)] = fe;
  }
  auto capacity_map = boost::make_iterator_property_map(capacity.begin(), edge_index);
  auto residual_map = boost::make_iterator_property_map(residual.begin(), edge_index);
  auto reverse_map = boost::make_iterator_property_map(reverse.begin(), edge_index);
  auto vertex_index = boost::get(boost::vertex_index, net);
  Capacity flow = 0;
  if (algorithm == MaxFlowAlgorithm::PushRelabel) {
    flow = boost::push_relabel_max_flow(net, source, sink, capacity_map, residual_map, reverse_map,
                                        vertex_index);
  } else {
    std::vector<Edge> predecessor(n);
    std::vector<boost::default_color_type> color(n);
    std::vector<int64_t> distance(n);
    flow = boost::boykov_kolmogorov_max_flow(
        net, capacity_map, residual_map, reverse_map,
        boost::make_iterator_property_map(predecessor.begin(), vertex_index),
        boost::make_iterator_property_map(color.begin(), vertex_index),
        boost::make_iterator_property_map(distance.begin(), vertex_index), vertex_index, source,
        sink);
  }
  result.value = static_cast<double>(flow);

  // The sink side: every vertex with a residual path to the sink (edges followed backwards).
  // by_input holds every network edge (and nothing at the self-loops' positions).
  Adjacency into =
      adjacency(n, by_input.size(), [&](size_t k) -> std::optional<std::pair<int, int>> {
        if (edges[k / 2].from == edges[k / 2].to || residual[index_of(by_input[k])] <= 0)
          return std::nullopt;
        return std::pair(static_cast<int>(boost::target(by_input[k], net)),
                         static_cast<int>(boost::source(by_input[k], net)));
      });
  std::vector<int> reached(n, -2);
  breadth_first(into, sink, -1, reached);
  for (int v = 0; v < n; ++v) result.source_side[v] = reached[v] == -2;
  for (size_t i = 0; i < graph.edges().size(); ++i) {
    const auto& e = graph.edges()[i];
    if (result.source_side[e.from] && !result.source_side[e.to])
      result.cut_edges.push_back(static_cast<int>(i));
  }
  return result;
}

}  // namespace remat::partition
