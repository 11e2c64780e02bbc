// Structural equality of graphs: same nodes, names, edges and metadata (node identity ignored).
#pragma once

#include <string>

#include "remat/ir/graph_module.h"

namespace remat {

/// Argument equality where node references compare by name, so arguments of two different
/// graphs (a graph and its copy, its re-read text...) can be compared.
bool same_argument(const Argument& a, const Argument& b);

/// The first difference between two modules, described for a test failure; empty when they
/// are equal: same node order, names, ops, targets, args/kwargs (references compared by name),
/// users in order, meta, and the same module-level fields and submodules.
std::string first_difference(const GraphModule& a, const GraphModule& b);

}  // namespace remat
