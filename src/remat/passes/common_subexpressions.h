// Common-subexpression elimination over a graph (docs/spec/partitioning.md §6.1): nodes with the
// same target and arguments are merged into the first (pass `cse`).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "remat/ir/graph.h"
#include "remat/passes/pass.h"

namespace remat::passes {

/// One node CSE removed, and the node that now stands for it.
struct Merge {
  std::string removed, kept;
};

/// Merges call_function nodes with the same target, args and kwargs, keeping the first;
/// placeholders, `empty` and the nodes `never_merge` names (the partitioner's random ops) are
/// kept, as is any node whose arguments hold values compared by text only (None, complex,
/// tensor constants, reprs), and any node sharing a storage with one of the graph's outputs (two
/// returned tensors made alike are still two tensors to the caller, and their views stay apart
/// too, as in PyTorch's CSE). Returns each merge, in graph order.
std::vector<Merge> eliminate_common_subexpressions(
    Graph& graph, const std::function<bool(const Node&)>& never_merge);

/// A random op as PyTorch's CSE knows them (dropout, bernoulli, rand_like, ...: its list by op
/// name, every overload), never merged.
bool is_random_for_cse(const Node& n);

/// `cse`: never merging a random op (is_random_for_cse).
PassInfo common_subexpressions_pass();

}  // namespace remat::passes
