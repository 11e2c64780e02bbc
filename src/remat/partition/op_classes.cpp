#include "remat/partition/op_classes.h"

#include <absl/container/flat_hash_set.h>

#include "remat/fxtext/text_scan.h"
#include "remat/ir/purity.h"
#include "remat/ops/op_registry.h"

namespace remat::partition {

extern const char* const kTorchRecomputableOpsText;
extern const char* const kTorchUnrecomputableOpsText;

namespace {

using PacketSet = absl::flat_hash_set<std::string_view>;

// The lines of an embedded list (comments skipped); with a class word, those of that class.
PacketSet read_packets(const char* text, std::string_view op_class = {}) {
  PacketSet set;
  for (std::string_view line : fxtext::split_lines(text)) {
    if (line.empty() || line.front() == '#') continue;
    if (op_class.empty()) {
      set.insert(line);
    } else if (line.starts_with(op_class) && line.size() > op_class.size() &&
               line[op_class.size()] == ' ') {
      set.insert(line.substr(op_class.size() + 1));
    }
  }
  return set;
}

// aten.X.overload and prims.X.overload by their packet; operator.X as it is.
std::string_view packet_of(std::string_view target) {
  if (target.starts_with("aten.") || target.starts_with("prims.")) {
    size_t dot = target.rfind('.');
    if (dot > target.find('.')) target = target.substr(0, dot);
  }
  return target;
}

}  // namespace

bool in_torch_recompute_allowlist(std::string_view target) {
  static const PacketSet& packets = *new PacketSet(read_packets(kTorchRecomputableOpsText));
  return packets.contains(packet_of(target));
}

bool is_torch_random_op(std::string_view target) {
  static const PacketSet& packets =
      *new PacketSet(read_packets(kTorchUnrecomputableOpsText, "random"));
  return packets.contains(packet_of(target));
}

bool is_torch_compute_intensive_op(std::string_view target) {
  static const PacketSet& packets =
      *new PacketSet(read_packets(kTorchUnrecomputableOpsText, "compute-intensive"));
  return packets.contains(packet_of(target));
}

bool recompute_never_assumed_safe(const Node& n, bool ban_unknown_ops) {
  if (n.op() != OpKind::CallFunction || is_getitem(n) || node_op(n) != nullptr) return false;
  return ban_unknown_ops || is_in_place(n);
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
