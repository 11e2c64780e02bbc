#include "remat/ir/graph_stats.h"

#include <algorithm>
#include <map>

namespace remat {

GraphStats compute_stats(const GraphModule& module) {
  GraphStats s;
  std::map<std::string, size_t> targets;
  for (const Node* n : module.graph().nodes()) {
    ++s.num_nodes;
    ++s.by_op_kind[static_cast<size_t>(n->op())];
    if (n->op() == OpKind::Placeholder) s.placeholders.push_back(n->name());
    if (n->op() == OpKind::CallFunction || n->op() == OpKind::CallMethod ||
        n->op() == OpKind::CallModule)
      ++targets[n->target().str()];
    if (n->op() == OpKind::Output) continue;
    bool sized = false;
    if (const TensorMeta* t = n->meta.tensor()) {
      if (auto b = t->nbytes()) {
        s.tensor_bytes += *b;
        sized = true;
      }
    } else if (const auto* tuple = n->meta.tensor_tuple()) {
      sized = true;
      for (const auto& element : *tuple) {
        std::optional<int64_t> b = element ? element->nbytes() : std::optional<int64_t>(0);
        if (b)
          s.tensor_bytes += *b;
        else
          sized = false;
      }
    }
    if (!sized) ++s.nodes_without_tensor_meta;
  }
  s.by_target.assign(targets.begin(), targets.end());
  std::stable_sort(s.by_target.begin(), s.by_target.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const Argument& a : module.outputs())
    s.outputs.push_back(a.is_node() ? a.as_node()->name() : std::string("None"));
  s.num_submodules = module.submodules.size();
  return s;
}

}  // namespace remat
