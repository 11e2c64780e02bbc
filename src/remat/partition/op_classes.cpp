#include "remat/partition/op_classes.h"

#include "remat/ops/op_registry.h"

namespace remat::partition {

bool is_random(const Node& n) {
  return node_is(n, OpCategory::Random);
}

OpClasses::OpClasses(const Graph& g) : bits_(g, 0) {
  for (const Node* n : g.nodes()) {
    const OpInfo* op = node_op(*n);
    bool view = op && op->is(OpCategory::View), random = op && op->is(OpCategory::Random);
    bool recomputable =
        is_getitem(*n) ||
        (op && (op->is(OpCategory::Recomputable) || op->is(OpCategory::Pointwise) || view));
    bits_[n] = (view ? kView : 0) | (random ? kRandom : 0) | (recomputable ? kRecomputable : 0) |
               (recomputable || random ? kFusibleOp : 0) |
               (n->target().view() == "aten.cat.default" ? kCat : 0);
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
