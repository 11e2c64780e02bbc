// What torch.fx's dead-code elimination asks of a node: whether it mutates or has effects
// beyond its result (the pass, extraction and the validity checker ask the same).
#pragma once

#include "remat/ir/node.h"

namespace remat {

/// An in-place `op_` overload (`add_`, `bernoulli_`; not a dunder such as `__iadd__`): it
/// mutates its first argument.
bool is_in_place(const Node& n);

/// torch.fx's default purity: placeholders and the output are impure; so are calls whose
/// target mutates or has side effects (in-place `op_` overloads, asserts, prints, collectives'
/// waits, `copy_`...); with `random_is_impure`, random ops too.
bool is_impure(const Node& n, bool random_is_impure = false);

}  // namespace remat
