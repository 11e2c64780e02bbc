#include "remat/partition/value_bytes.h"

#include "remat/ir/graph.h"
#include "remat/ir/node_set.h"
#include "remat/support/saturating_math.h"

namespace remat::partition {

int64_t value_bytes(const Node& n) {
  if (const TensorMeta* t = n.meta.tensor()) return t->estimated_nbytes().value_or(0);
  int64_t total = 0;
  if (const auto* tuple = n.meta.tensor_tuple()) {
    for (const auto& e : *tuple) total = sat_add(total, e ? e->estimated_nbytes().value_or(0) : 0);
  }
  return total;
}

int64_t activation_bytes(std::span<const Node* const> saved) {
  if (saved.empty()) return 0;
  NodeSet storages(*saved.front()->graph());
  int64_t bytes = 0;
  for (const Node* n : saved) {
    const Node& root = storage_root(*n);
    if (root.op() != OpKind::Placeholder && storages.insert(&root))
      bytes = sat_add(bytes, value_bytes(root));
  }
  return bytes;
}

}  // namespace remat::partition
