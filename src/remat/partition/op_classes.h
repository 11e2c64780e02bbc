// The partitioner's op classes (aot-partition spec §6.5): which nodes are views, random,
// recomputable or fusible, and which values are materialized.
#pragma once

#include "remat/ir/node.h"

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

}  // namespace remat::partition
