// The derivative table: for each differentiable ATen op, what its backward saves and emits.
#pragma once

#include <string_view>
#include <vector>

#include "remat/autodiff/backward_context.h"

namespace remat::autodiff {

struct DerivativeRule {
  std::string_view target;  ///< the forward op, `aten.mm.default`
  /// Outputs autograd saves for the backward: each gets the detach pattern (`detach(out)` in
  /// the forward, `detach(detach)` when the backward unpacks it).
  std::vector<size_t> saved_outputs;
  /// Outputs that carry gradients (empty: every floating-point output).
  std::vector<size_t> differentiable_outputs;
  /// Emits the backward ops, in the order PyTorch's autograd emits them, and sets the input
  /// gradients. Engine-side broadcast reductions (sum_to) are the builder's, not the rule's.
  void (*backward)(BackwardContext& ctx);
};

/// The rule for a forward op, or nullptr.
const DerivativeRule* find_rule(std::string_view target);
/// Ops whose outputs never carry gradients (comparisons, factories, detach, backward ops...).
bool is_non_differentiable(std::string_view target);
/// Every rule, for tests.
std::span<const DerivativeRule> all_rules();

}  // namespace remat::autodiff
