#include "remat/partition/op_classes.h"

#include <absl/container/flat_hash_set.h>

#include "remat/fxtext/text_scan.h"
#include "remat/ops/op_registry.h"

namespace remat::partition {

extern const char* const kTorchRecomputableOpsText;

namespace {

const absl::flat_hash_set<std::string_view>& torch_recompute_allowlist() {
  static const auto* packets = [] {
    auto* set = new absl::flat_hash_set<std::string_view>();
    for (std::string_view line : fxtext::split_lines(kTorchRecomputableOpsText))
      if (!line.empty() && line.front() != '#') set->insert(line);
    return set;
  }();
  return *packets;
}

}  // namespace

bool in_torch_recompute_allowlist(std::string_view target) {
  // aten.X.overload and prims.X.overload by their packet; operator.X as it is.
  if (target.starts_with("aten.") || target.starts_with("prims.")) {
    size_t dot = target.rfind('.');
    if (dot > target.find('.')) target = target.substr(0, dot);
  }
  return torch_recompute_allowlist().contains(target);
}

bool is_random(const Node& n) {
  return node_is(n, OpCategory::Random);
}

OpClasses::OpClasses(const Graph& g) : bits_(g, 0) {
  for (const Node* n : g.nodes()) {
    const OpInfo* op = node_op(*n);
    bool view = op && op->is(OpCategory::View), random = op && op->is(OpCategory::Random);
    bool recomputable =
        is_getitem(*n) ||
        (op && (op->is(OpCategory::Recomputable) || op->is(OpCategory::Pointwise) || view)) ||
        (op == nullptr && n->op() == OpKind::CallFunction &&
         in_torch_recompute_allowlist(n->target().view()));
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
