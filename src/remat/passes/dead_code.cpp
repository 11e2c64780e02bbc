#include "remat/passes/dead_code.h"

namespace remat::passes {

std::vector<std::string> eliminate_dead_code(Graph& graph,
                                             const std::function<bool(const Node&)>& impure) {
  std::vector<std::string> erased;
  Node* n = graph.last();
  while (n != nullptr) {
    Node* prev = n->prev();
    if (n->users().empty() && !impure(*n)) {
      erased.push_back(n->name());
      graph.erase(n);
    }
    n = prev;
  }
  return erased;
}

PassInfo dead_code_pass() {
  PassInfo p;
  p.name = "dce";
  p.summary =
      "erase every node nothing uses that has no effect beyond its result (torch.fx's "
      "eliminate_dead_code)";
  p.on_graph = [](GraphModule& m) -> Expected<PassResult> {
    PassResult r;
    std::vector<std::string> erased = eliminate_dead_code(m.graph());
    r.changed = !erased.empty();
    r.statistics.emplace_back("erased", static_cast<int64_t>(erased.size()));
    for (auto it = erased.rbegin(); it != erased.rend(); ++it)
      r.remarks.push_back({*it, "erased: nothing uses it", ""});
    return r;
  };
  return p;
}

}  // namespace remat::passes
