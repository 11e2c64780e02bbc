// Every node's input nodes in flat arrays, for analyses that walk them many times.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "remat/ir/graph.h"

namespace remat {

/// Each node's inputs as Node::collect_input_nodes gives them (each once, args first), gathered
/// in one walk over the graph: later walks read a contiguous array instead of each node's
/// argument blocks (a cache miss or more per node on big graphs). A snapshot: editing the graph
/// makes it stale.
class InputLists {
 public:
  explicit InputLists(const Graph& g);

  [[nodiscard]] std::span<Node* const> of(const Node* n) const {
    auto [begin, end] = ranges_[n->id()];
    return {inputs_.data() + begin, end - begin};
  }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;  // by node id: [begin, end) in inputs_
  std::vector<Node*> inputs_;                          // in graph order
};

}  // namespace remat
