// Random ops the backward recomputes must draw what the forward drew (docs/spec/partitioning.md
// §8.4: the path for CPU and other non-graph-safe devices; pass `rng-functionalization`).
#pragma once

#include <string>
#include <vector>

#include "remat/ir/forward_backward.h"
#include "remat/passes/pass.h"

namespace remat::passes {

/// A random op whose recomputation replays the forward's RNG state: remat's random ops
/// (native_dropout), and any op PyTorch tags nondeterministic_seeded when a checkpoint tag
/// (PREFER_RECOMPUTE, MUST_RECOMPUTE) makes it recompute, as PyTorch's RNG functionalization
/// chooses them.
bool replays_rng_state(const Node& n);

/// For each such random op present in both graphs (matched by name): the forward runs it under
/// `higher_order.run_and_save_rng_state` and returns the state (named `rng_state_output_<k>`,
/// before the saved symints); the backward takes that state as an input (before the first
/// tangent) and runs the op under `higher_order.run_with_rng_state`. Returns the ops changed.
std::vector<std::string> functionalize_recomputed_rng(ForwardBackward& graphs);

/// `rng-functionalization`: a pass over the forward and the backward together.
PassInfo rng_functionalization_pass();

}  // namespace remat::passes
