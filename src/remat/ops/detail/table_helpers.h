// Helpers shared by the op table parts: building outputs, the common inference shapes.
#pragma once

#include <initializer_list>
#include <vector>

#include "remat/ops/bound_call.h"
#include "remat/ops/op_info.h"
#include "remat/ops/shape_rules.h"
#include "remat/support/saturating_math.h"

namespace remat::detail {

using shape_rules::ConcreteTensor;
using shape_rules::Dims;
using shape_rules::fail;

constexpr OpCategory kPointwise = OpCategory::Pointwise | OpCategory::Recomputable;
constexpr OpCategory kView = OpCategory::View | OpCategory::Recomputable;

inline ConcreteTensor arg_tensor(const BoundCall& c, size_t i) {
  return shape_rules::concrete(c.tensor(i));
}

inline InferredOutputs one(TensorMeta t) {
  InferredOutputs out;
  out.values.emplace_back(std::move(t));
  return out;
}
inline InferredOutputs tuple(std::vector<std::optional<TensorMeta>> values) {
  InferredOutputs out;
  out.values = std::move(values);
  out.is_tuple = true;
  return out;
}
inline TensorMeta meta(const Dims& sizes, const Dims& strides, DType dtype, InternedString device) {
  return shape_rules::make_meta(sizes, strides, dtype, device);
}
inline TensorMeta contiguous(const Dims& sizes, DType dtype, InternedString device) {
  return shape_rules::contiguous_meta(sizes, dtype, device);
}

/// How a pointwise op picks its result dtype.
enum class ResultDType {
  Promote,         ///< torch.result_type of the operands
  PromoteToFloat,  ///< as Promote, then integral -> float32 (sin, div, sqrt, ...)
  Bool,            ///< comparisons
  First,           ///< the first tensor's dtype (masked_fill, threshold_backward)
};

/// A pointwise op over the tensor arguments `tensors` and number arguments `scalars`:
/// broadcast shape, TensorIterator strides, promoted dtype.
InferredOutputs pointwise(const BoundCall& c, std::initializer_list<size_t> tensors,
                          std::initializer_list<size_t> scalars, ResultDType rule);

/// 2 * M * N * K for an [M, K] x [K, N] product.
inline int64_t matmul_flops(int64_t m, int64_t k, int64_t n) {
  return sat_mul(sat_mul(sat_mul(2, m), k), n);
}

}  // namespace remat::detail
