#include "remat/passes/recompute_tag_cleanup.h"

namespace remat::passes {

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

namespace {

PassInfo cleanup_pass(bool is_default_partition) {
  PassInfo p;
  p.name = is_default_partition ? "tag-cleanup-default" : "tag-cleanup";
  p.summary = is_default_partition
                  ? "the default partition's recompute-tag clean-up: also every region input "
                    "becomes MUST_SAVE (case C)"
                  : "the min-cut's recompute-tag clean-up: region boundaries and hooked region "
                    "outputs become MUST_SAVE (cases A and B)";
  p.on_graph = [is_default_partition](GraphModule& m) -> Expected<PassResult> {
    PassResult r;
    if (!has_recomputable_ops(m.graph())) return r;
    for (const Node* n : cleanup_recompute_tags(m.graph(), is_default_partition)) {
      r.remarks.push_back(
          {n->name(),
           n->meta.ac_graph_id()
               ? "boundary between checkpoint regions (tag clean-up made it MUST_SAVE)"
               : "input of a checkpoint region (tag clean-up made it MUST_SAVE)",
           ""});
    }
    r.changed = !r.remarks.empty();
    r.statistics.emplace_back("made MUST_SAVE", static_cast<int64_t>(r.remarks.size()));
    return r;
  };
  return p;
}

}  // namespace

PassInfo recompute_tag_cleanup_pass() {
  return cleanup_pass(false);
}
PassInfo default_recompute_tag_cleanup_pass() {
  return cleanup_pass(true);
}

}  // namespace remat::passes
