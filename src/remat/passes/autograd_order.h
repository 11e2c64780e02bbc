// The order a partition's graphs run in, as PyTorch's extraction leaves them
// (docs/spec/partitioning.md §8.5-§8.6): passes `autograd-order` and `raise-getitems`.
#pragma once

#include "remat/ir/graph.h"
#include "remat/passes/pass.h"

namespace remat::passes {

/// From the first node that reads a tangent onwards, each node is preceded by its inputs not yet
/// placed, so recomputed forward chains land right before their first use; nodes before it that
/// nothing placed keep their relative order in front.
void reorder_like_autograd(Graph& g);
/// Every getitem right after its producer, keeping their relative order.
void raise_getitems(Graph& g);

PassInfo autograd_order_pass();
PassInfo raise_getitems_pass();

}  // namespace remat::passes
