// Which node's storage a value lives in.
#pragma once

#include "remat/ir/node.h"

namespace remat {

/// The node whose storage the partitioners count `n`'s bytes in: through the registry's views
/// (PyTorch's partitioner's view class), detach and _unsafe_view.
const Node& storage_root(const Node& n);

/// The node whose storage `n`'s value shares, as PyTorch's fake tensors tell: through every op
/// whose schema returns an alias of its input (`Tensor(a) self -> Tensor(a)`: view, transpose,
/// expand, slice, detach, ...; and the elements of split/unbind/chunk), known from the registry,
/// or by name for the aliasing ops outside it (alias, as_strided, unfold, diagonal, ...).
const Node& alias_root(const Node& n);

}  // namespace remat
