#include "remat/partition/recompute_tags.h"

namespace remat::partition {

bool must_recompute(const Node& n) {
  return n.meta.recompute && is_recompute(*n.meta.recompute);
}

bool has_recomputable_ops(const Graph& g) {
  for (const Node* n : g.nodes()) {
    if (must_recompute(*n)) return true;
  }
  return false;
}

namespace {
bool has_backward_hook(const Node& n) {
  for (const auto& f : n.meta.extras()) {
    if (f.key == "has_backward_hook") return f.json == "true";
  }
  return false;
}
}  // namespace

std::vector<Node*> cleanup_recompute_tags(Graph& g, bool is_default_partition) {
  std::vector<Node*> changed;
  for (Node* n : g.nodes()) {
    bool to_save = false;
    if (must_recompute(*n)) {
      bool any_recompute_user = false;
      for (const Node* u : n->users()) {
        if (!must_recompute(*u)) continue;
        any_recompute_user = true;
        auto nid = n->meta.ac_graph_id(), uid = u->meta.ac_graph_id();
        if (nid && uid && *uid > *nid) to_save = true;  // case A
      }
      if (has_backward_hook(*n) && !any_recompute_user) to_save = true;  // case B
    } else if (is_default_partition && !n->meta.ac_graph_id()) {
      bool region_input = false;
      for (const Node* u : n->users()) region_input = region_input || must_recompute(*u);
      if (region_input && is_getitem(*n) && !n->args().empty() && n->args()[0].is_node() &&
          n->args()[0].as_node()->meta.ac_graph_id()) {
        region_input = false;
      }
      to_save = region_input;  // case C
    }
    if (to_save) {
      n->meta.recompute = CheckpointPolicy::MustSave;
      changed.push_back(n);
    }
  }
  return changed;
}

}  // namespace remat::partition
