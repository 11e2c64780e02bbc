// Common-subexpression elimination over a graph (aot-partition spec §6.1): nodes with the same
// target and arguments are merged into the first.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "remat/ir/graph.h"

namespace remat {

/// Merges call_function nodes with the same target, args and kwargs, keeping the first;
/// placeholders, `empty` and the nodes `never_merge` names (the partitioner's random ops) are
/// kept, as is any node whose arguments hold values compared by text only (None, complex,
/// tensor constants, reprs). Returns how many nodes it removed; `merged`, when given, receives
/// each removed node's name with the name of the node that replaced it.
size_t eliminate_common_subexpressions(
    Graph& graph, const std::function<bool(const Node&)>& never_merge,
    std::vector<std::pair<std::string, std::string>>* merged = nullptr);

}  // namespace remat
