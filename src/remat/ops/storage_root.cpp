#include "remat/ops/storage_root.h"

#include "remat/ops/op_registry.h"

namespace remat {

const Node& storage_root(const Node& n) {
  const Node* at = &n;
  while (at->op() == OpKind::CallFunction && !at->args().empty() && at->args()[0].is_node() &&
         (node_is(*at, OpCategory::View) || at->target().view() == "aten.detach.default" ||
          at->target().view() == "aten._unsafe_view.default")) {
    at = at->args()[0].as_node();
  }
  return *at;
}

}  // namespace remat
