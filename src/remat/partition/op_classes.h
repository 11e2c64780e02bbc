// The partitioner's op classes (aot-partition spec §6.5): which nodes are views, random,
// recomputable or fusible, and which values are materialized.
#pragma once

#include <cstdint>

#include "remat/ir/graph.h"
#include "remat/ir/node.h"
#include "remat/ir/node_set.h"

namespace remat::partition {

bool is_view(const Node* n);
bool is_random(const Node* n);
/// recomputable_ops ∪ pointwise ∪ views; getitem too.
bool is_recomputable(const Node* n);
/// Recomputable or random: an op a fusing compiler would put in the same kernel.
bool is_fusible_op(const Node* n);
/// Whether `b` reading `a` fuses (a `cat` fuses with whatever it reads).
bool is_fusible(const Node* a, const Node* b);
/// A value some user does not fuse with, so it is written to memory (placeholders always).
bool is_materialized(const Node* n);

/// The classes above for every node of one graph, worked out in one sweep: the cut's ban
/// heuristics ask them per node and per edge, several times per partition.
class OpClasses {
 public:
  OpClasses() = default;
  explicit OpClasses(const Graph& g);

  [[nodiscard]] bool view(const Node* n) const { return has(n, kView); }
  [[nodiscard]] bool random(const Node* n) const { return has(n, kRandom); }
  [[nodiscard]] bool recomputable(const Node* n) const { return has(n, kRecomputable); }
  [[nodiscard]] bool fusible(const Node* a, const Node* b) const {
    return has(b, kCat) || (has(a, kFusibleOp) && has(b, kFusibleOp));
  }
  [[nodiscard]] bool materialized(const Node* n) const;

 private:
  enum : uint8_t { kView = 1, kRandom = 2, kRecomputable = 4, kFusibleOp = 8, kCat = 16 };
  [[nodiscard]] bool has(const Node* n, uint8_t bit) const { return (bits_[n] & bit) != 0; }
  NodeMap<uint8_t> bits_;
};

}  // namespace remat::partition
