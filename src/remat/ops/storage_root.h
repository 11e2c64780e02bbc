// Which node's storage a value lives in, as PyTorch's fake tensors tell by sharing storages.
#pragma once

#include "remat/ir/node.h"

namespace remat {

/// The node whose storage `n`'s value lives in: through views (the registry's), detach and
/// _unsafe_view.
const Node& storage_root(const Node& n);

}  // namespace remat
