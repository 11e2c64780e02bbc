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

OpClasses::OpClasses(const Graph& g) : bits_(g, 0) {
  for (const Node* n : g.nodes()) {
    // The free functions above, from one registry lookup.
    const OpInfo* op = node_op(*n);
    bool view = op && op->is(OpCategory::View), random = op && op->is(OpCategory::Random);
    bool recomputable =
        is_getitem(*n) || (op && (op->is(OpCategory::Recomputable) || op->is(OpCategory::Pointwise) || view));
    bits_[n] = (view ? kView : 0) | (random ? kRandom : 0) | (recomputable ? kRecomputable : 0) |
               (recomputable || random ? kFusibleOp : 0) | (n->target().view() == "aten.cat.default" ? kCat : 0);
  }
}

bool OpClasses::materialized(const Node* n) const {
  if (n->op() == OpKind::Placeholder) return true;
  for (const Node* u : n->users()) {
    if (!fusible(n, u)) return true;
  }
  return false;
}

}  // namespace remat::partition
