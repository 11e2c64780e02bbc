// verify(): structural invariants of a graph, every violation reported.
#pragma once

#include "remat/ir/graph.h"
#include "remat/ir/graph_module.h"
#include "remat/support/diagnostic.h"

namespace remat {

/// Checks use/arg symmetry (Note [use lists]), definition before use, unique names, a single
/// output node, the order index and tensor metadata sanity. Returns one diagnostic per problem
/// (path = the node's name); empty when the graph is well formed.
Diagnostics verify(const Graph& graph);
/// verify() on the graph and every submodule, plus module-level counts and saved values.
Diagnostics verify(const GraphModule& module);

}  // namespace remat
