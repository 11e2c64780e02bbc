// Dead-code elimination, as torch.fx's Graph.eliminate_dead_code does it.
#pragma once

#include <cstddef>
#include <functional>

#include "remat/ir/graph.h"

namespace remat {

/// An in-place `op_` overload (`add_`, `bernoulli_`; not a dunder such as `__iadd__`): it
/// mutates its first argument.
bool is_in_place(const Node& n);

/// torch.fx's default purity: placeholders and the output are impure; so are calls whose
/// target mutates or has side effects (in-place `op_` overloads, asserts, prints, collectives'
/// waits, `copy_`...); with `random_is_impure`, random ops too.
bool is_impure(const Node& n, bool random_is_impure = false);

/// Erases, from the end backwards, every node without users that `impure` does not keep.
/// Returns how many nodes were erased.
size_t eliminate_dead_code(
    Graph& graph,
    const std::function<bool(const Node&)>& impure = [](const Node& n) { return is_impure(n); });

}  // namespace remat
