#include "remat/partition/op_classes.h"

#include "remat/ops/op_registry.h"

namespace remat::partition {

bool is_view(const Node* n) {
  return node_is(*n, OpCategory::View);
}

bool is_random(const Node* n) {
  return node_is(*n, OpCategory::Random);
}

bool is_recomputable(const Node* n) {
  if (is_getitem(*n)) return true;
  const OpInfo* op = node_op(*n);
  return op && (op->is(OpCategory::Recomputable) || op->is(OpCategory::Pointwise) || op->is(OpCategory::View));
}

bool is_fusible_op(const Node* n) {
  return is_recomputable(n) || is_random(n);
}

bool is_fusible(const Node* a, const Node* b) {
  if (b->target().view() == "aten.cat.default") return true;
  return is_fusible_op(a) && is_fusible_op(b);
}

bool is_materialized(const Node* n) {
  if (n->op() == OpKind::Placeholder) return true;
  for (const Node* u : n->users()) {
    if (!is_fusible(n, u)) return true;
  }
  return false;
}

}  // namespace remat::partition
