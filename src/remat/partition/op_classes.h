// The partitioner's op classes (docs/spec/partitioning.md §6.5): which nodes are views, random,
// recomputable or fusible, and which values are materialized.
#pragma once

#include <cstdint>
#include <string_view>

#include "remat/ir/graph.h"
#include "remat/ir/node.h"
#include "remat/ir/node_set.h"

namespace remat::partition {

/// A random op (never merged by CSE, never assumed safe to run twice).
bool is_random(const Node& n);
/// In PyTorch's recompute allowlist (partition/data/torch_recomputable_ops.txt, from the
/// PyTorch it was generated with: a fixed list plus every op with a pointwise overload), by the
/// target's operator packet: `aten.bitwise_not.default` is in it as `aten.bitwise_not`.
bool in_torch_recompute_allowlist(std::string_view target);

/// The classes of every node of one graph, worked out in one sweep: the cut's ban heuristics
/// ask them per node and per edge, several times per partition.
class OpClasses {
 public:
  OpClasses() = default;
  explicit OpClasses(const Graph& g);

  [[nodiscard]] bool view(const Node* n) const { return has(n, kView); }
  [[nodiscard]] bool random(const Node* n) const { return has(n, kRandom); }
  /// recomputable_ops ∪ pointwise ∪ views (remat's registry, and PyTorch's allowlist for ops
  /// outside it); getitem too.
  [[nodiscard]] bool recomputable(const Node* n) const { return has(n, kRecomputable); }
  /// Whether `b` reading `a` fuses: both recomputable or random (what a fusing compiler puts in
  /// one kernel), or `b` is a `cat`.
  [[nodiscard]] bool fusible(const Node* a, const Node* b) const {
    return has(b, kCat) || (has(a, kFusibleOp) && has(b, kFusibleOp));
  }
  /// A value some user does not fuse with, so it is written to memory (placeholders always).
  [[nodiscard]] bool materialized(const Node* n) const;

 private:
  enum : uint8_t { kView = 1, kRandom = 2, kRecomputable = 4, kFusibleOp = 8, kCat = 16 };
  [[nodiscard]] bool has(const Node* n, uint8_t bit) const { return (bits_[n] & bit) != 0; }
  NodeMap<uint8_t> bits_;
};

}  // namespace remat::partition
