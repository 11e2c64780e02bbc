// What a node's value weighs, and whose storage it lives in: the bytes the partition record,
// the memory timeline and the knapsacks count.
#pragma once

#include <cstdint>
#include <span>

#include "remat/ir/node.h"
#include "remat/ops/storage_root.h"  // storage_root: whose storage a value is counted in

namespace remat::partition {

/// Bytes of a node's value: tensor numel x itemsize (tuples: the sum; symbolic shapes: by their
/// numel_hint, as PyTorch sizes them), 0 for symbolic values and shapes without a hint.
int64_t value_bytes(const Node& n);
/// Activation memory: the bytes of the distinct storages `saved` keeps alive beyond the inputs'
/// (a view or detach counts its base, once). All nodes of one graph.
int64_t activation_bytes(std::span<const Node* const> saved);

}  // namespace remat::partition
