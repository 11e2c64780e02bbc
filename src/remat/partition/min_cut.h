// Minimum s-t cuts as PyTorch's min-cut partitioner takes them: a maximum flow, then the sink side
// is every vertex that can still reach the sink in the residual network (docs/spec/partitioning.md
// §6.9).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace remat::partition {

inline constexpr double kInfiniteCapacity = std::numeric_limits<double>::infinity();

/// A directed flow network over dense vertex indices. Capacities are non-negative integers in
/// practice (PyTorch's weights are ints); +infinity marks edges that may never be cut.
class FlowGraph {
 public:
  int add_vertex(std::string name);
  /// Adds `from -> to`; parallel edges add up, as in a networkx DiGraph the last one wins:
  /// both simply carry their capacity here, which gives the same cut value.
  void add_edge(int from, int to, double capacity);

  struct Edge {
    int from;
    int to;
    double capacity;
  };
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }
  [[nodiscard]] const std::vector<Edge>& edges() const { return edges_; }
  [[nodiscard]] int num_vertices() const { return static_cast<int>(names_.size()); }

 private:
  std::vector<std::string> names_;
  std::vector<Edge> edges_;
};

enum class MaxFlowAlgorithm { PushRelabel, BoykovKolmogorov };

struct MinCut {
  double value = 0;  ///< the maximum flow; +infinity when some source-sink path is all infinite
  std::vector<bool>
      source_side;  ///< per vertex; the maximal source side (the unique one PyTorch takes)
  std::vector<int> cut_edges;      ///< indices of edges from the source side to the sink side
  std::vector<int> infinite_path;  ///< when unbounded: the vertices of an all-infinite path
  [[nodiscard]] bool unbounded() const { return !infinite_path.empty(); }
};

/// Solves the minimum cut between `source` and `sink`.
MinCut solve_min_cut(const FlowGraph& graph, int source, int sink,
                     MaxFlowAlgorithm algorithm = MaxFlowAlgorithm::PushRelabel);

}  // namespace remat::partition
