#include "remat/ir/input_lists.h"

namespace remat {

InputLists::InputLists(const Graph& g) : ranges_(g.id_bound(), {0, 0}) {
  inputs_.reserve(g.size() * 2);
  std::vector<Node*> ins;
  for (const Node* n : g.nodes()) {
    n->collect_input_nodes(ins);
    auto begin = static_cast<uint32_t>(inputs_.size());
    inputs_.insert(inputs_.end(), ins.begin(), ins.end());
    ranges_[n->id()] = {begin, static_cast<uint32_t>(inputs_.size())};
  }
}

}  // namespace remat
