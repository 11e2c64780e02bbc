// Dead-code elimination, as torch.fx's Graph.eliminate_dead_code does it (pass `dce`;
// docs/spec/partitioning.md §6.1, §8.1).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "remat/ir/graph.h"
#include "remat/ir/purity.h"
#include "remat/passes/pass.h"

namespace remat::passes {

/// Erases, from the end backwards, every node without users that `impure` does not keep.
/// Returns the names of the nodes erased, last first.
std::vector<std::string> eliminate_dead_code(
    Graph& graph,
    const std::function<bool(const Node&)>& impure = [](const Node& n) { return is_impure(n); });

/// `dce`: eliminate_dead_code with torch.fx's purity.
PassInfo dead_code_pass();

}  // namespace remat::passes
