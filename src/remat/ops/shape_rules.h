// Shape, stride and dtype rules shared by the op table, written the way ATen computes them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "remat/fxtext/dtype.h"
#include "remat/ir/tensor_meta.h"

namespace remat::shape_rules {

using Dims = std::vector<int64_t>;

/// Thrown by the rules on a call ATen would reject; the registry turns it into a Diagnostic.
class InferError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const std::string& message);

/// A concrete-shape view of a TensorMeta (symbolic sizes are rejected with InferError).
struct ConcreteTensor {
  Dims sizes;
  Dims strides;
  DType dtype = DType::Unknown;
  InternedString device;
  [[nodiscard]] int64_t rank() const { return static_cast<int64_t>(sizes.size()); }
  [[nodiscard]] int64_t numel() const;
};
ConcreteTensor concrete(const TensorMeta& t);
TensorMeta make_meta(const Dims& sizes, const Dims& strides, DType dtype, InternedString device);
TensorMeta contiguous_meta(const Dims& sizes, DType dtype, InternedString device);

Dims contiguous_strides(const Dims& sizes);
int64_t numel(const Dims& sizes);
/// Wraps a possibly negative dim into [0, rank) (rank 0 accepts -1 and 0), as ATen's
/// maybe_wrap_dim.
int64_t wrap_dim(int64_t dim, int64_t rank);
/// Broadcasts two shapes (numpy rules) or fails with ATen's message.
Dims broadcast_shapes(const Dims& a, const Dims& b);
/// `[2, 3]` as ATen prints shapes in errors.
std::string shape_text(const Dims& d);

/// ATen's is_contiguous: size-1 dims' strides do not matter.
bool is_contiguous(const Dims& sizes, const Dims& strides);
/// Every element at a distinct offset and no gaps, in some order of dims.
bool is_non_overlapping_and_dense(const Dims& sizes, const Dims& strides);
/// Strides of an output that TensorIterator allocates for `shape` from `inputs` (already
/// broadcast-compatible): the inputs' dim order is kept, e.g. sin(x.t()) is column-major.
Dims pointwise_output_strides(const Dims& shape, std::span<const ConcreteTensor* const> inputs);
/// Strides `empty_like(x, preserve_format)` gives: x's when dense, else contiguous.
Dims preserve_format_strides(const ConcreteTensor& x);
/// Strides of `view(x, new_sizes)`, or nullopt when the view is impossible without a copy.
std::optional<Dims> view_strides(const ConcreteTensor& x, const Dims& new_sizes);
/// Resolves one `-1` in a view/reshape size against numel, or fails.
Dims infer_size(const Dims& requested, int64_t numel);

// --- dtypes ---
bool is_floating(DType d);
bool is_complex(DType d);
bool is_integral(DType d, bool include_bool);
/// torch.promote_types.
DType promote_types(DType a, DType b);
/// One operand of a type-promoting op: a tensor (with its rank) or a Python number.
struct PromotionOperand {
  DType dtype;
  int64_t rank = 0;
  bool is_scalar = false;  ///< a wrapped Python number (Scalar argument)
};
/// torch.result_type: dim>0 tensors, then zero-dim tensors, then numbers, by category.
DType result_type(std::span<const PromotionOperand> operands);
/// The dtype a Python number gets as a wrapped tensor: bool, int64, float32 or complex64.
DType scalar_dtype_of(bool is_bool, bool is_integral, bool is_complex);

}  // namespace remat::shape_rules
