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
/// What PyTorch's min-cut bans from recomputation when its allowlist is off (under a memory
/// budget; partition/data/torch_unrecomputable_ops.txt), by operator packet: its random ops
/// (native_dropout, rand_like, randn_like) and its compute-intensive ops (mm, convolution, the
/// CUDA attention kernels...). Every other op it may recompute, CPU attention included.
bool is_torch_random_op(std::string_view target);
bool is_torch_compute_intensive_op(std::string_view target);
/// A call remat never assumes safe to run twice, whatever the budget: an in-place op outside its
/// registry (PyTorch 1.13's dropout, `bernoulli_` on an `empty_like`, draws new masks), and with
/// `ban_unknown_ops` (MinCutConfig::ban_recompute_unknown_ops) any op outside it.
bool recompute_never_assumed_safe(const Node& n, bool ban_unknown_ops);

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
