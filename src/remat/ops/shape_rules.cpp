#include "remat/ops/shape_rules.h"

#include "remat/support/saturating_math.h"

#include <algorithm>
#include <numeric>

namespace remat::shape_rules {

void fail(const std::string& message) {
  throw InferError(message);
}

int64_t numel(const Dims& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n = sat_mul(n, s);
  return n;
}

int64_t ConcreteTensor::numel() const {
  return shape_rules::numel(sizes);
}

ConcreteTensor concrete(const TensorMeta& t) {
  ConcreteTensor c;
  c.dtype = t.dtype;
  c.device = t.device;
  for (SymInt s : t.sizes()) {
    if (s.is_symbolic())
      fail("symbolic size " + s.to_string() + " (shape inference needs concrete sizes)");
    c.sizes.push_back(s.value());
  }
  if (auto st = t.strides()) {
    for (SymInt s : *st) {
      if (s.is_symbolic()) fail("symbolic stride " + s.to_string());
      c.strides.push_back(s.value());
    }
  } else {
    c.strides = contiguous_strides(c.sizes);
  }
  return c;
}

TensorMeta make_meta(const Dims& sizes, const Dims& strides, DType dtype, InternedString device) {
  std::vector<SymInt> sz(sizes.begin(), sizes.end()), st(strides.begin(), strides.end());
  return TensorMeta(dtype, sz, std::span<const SymInt>(st), device);
}

TensorMeta contiguous_meta(const Dims& sizes, DType dtype, InternedString device) {
  return make_meta(sizes, contiguous_strides(sizes), dtype, device);
}

Dims contiguous_strides(const Dims& sizes) {
  Dims strides(sizes.size());
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    running *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

int64_t wrap_dim(int64_t dim, int64_t rank) {
  int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    fail("Dimension out of range (expected to be in range of [" + std::to_string(-r) + ", " +
         std::to_string(r - 1) + "], but got " + std::to_string(dim) + ")");
  }
  return dim < 0 ? dim + r : dim;
}

std::string shape_text(const Dims& d) {
  std::string out = "[";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(d[i]);
  }
  return out + "]";
}

Dims broadcast_shapes(const Dims& a, const Dims& b) {
  size_t n = std::max(a.size(), b.size());
  Dims out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      fail("The size of tensor a (" + std::to_string(da) + ") must match the size of tensor b (" +
           std::to_string(db) + ") at non-singleton dimension " + std::to_string(i));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool is_contiguous(const Dims& sizes, const Dims& strides) {
  if (numel(sizes) == 0) return true;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

bool is_non_overlapping_and_dense(const Dims& sizes, const Dims& strides) {
  if (sizes.size() == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (size_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

namespace {

// An operand as TensorIterator sees it: broadcast to the iteration shape, with stride 0 on
// broadcast dims.
Dims iteration_strides(const Dims& shape, const ConcreteTensor& t) {
  Dims out(shape.size(), 0);
  size_t offset = shape.size() - t.sizes.size();
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    bool broadcast = t.sizes[i] == 1 && shape[offset + i] != 1;
    out[offset + i] = broadcast ? 0 : t.strides[i];
  }
  return out;
}

}  // namespace

// Note [pointwise output layout]: TensorIterator takes a fast path when every input has the
// output's shape and all are contiguous (output contiguous) or all share the same dense strides
// (output gets those strides). Otherwise it orders dims by the inputs' strides, fastest first
// (insertion sort, first input that decides wins; stride 0 abstains; equal strides fall back to
// the larger size being slower), and lays the output out densely in that order.
Dims pointwise_output_strides(const Dims& shape, std::span<const ConcreteTensor* const> inputs) {
  size_t ndim = shape.size();
  if (ndim == 0 || inputs.empty()) return contiguous_strides(shape);
  bool same_shapes = true;
  for (const ConcreteTensor* t : inputs) same_shapes = same_shapes && t->sizes == shape;
  if (same_shapes) {
    bool all_contiguous = true;
    for (const ConcreteTensor* t : inputs)
      all_contiguous = all_contiguous && is_contiguous(t->sizes, t->strides);
    if (all_contiguous) return contiguous_strides(shape);
    bool all_same_dense = is_non_overlapping_and_dense(inputs[0]->sizes, inputs[0]->strides);
    for (const ConcreteTensor* t : inputs)
      all_same_dense = all_same_dense && t->strides == inputs[0]->strides;
    if (all_same_dense) return inputs[0]->strides;
  }
  std::vector<Dims> strides;
  for (const ConcreteTensor* t : inputs) strides.push_back(iteration_strides(shape, *t));
  // perm[0] is the fastest-moving dim; start from the reversed (row-major) order.
  std::vector<size_t> perm(ndim);
  for (size_t i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
  auto should_swap = [&](size_t dim0, size_t dim1) -> int {
    for (const Dims& s : strides) {
      int64_t s0 = s[dim0], s1 = s[dim1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[dim0] > shape[dim1]) return 1;
    }
    return 0;
  };
  for (size_t i = 1; i < ndim; ++i) {
    size_t dim1 = i;
    for (size_t dim0 = i; dim0-- > 0;) {
      int c = should_swap(perm[dim0], perm[dim1]);
      if (c > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (c < 0) {
        break;
      }
    }
  }
  Dims out(ndim);
  int64_t running = 1;
  for (size_t d : perm) {
    out[d] = running;
    running *= shape[d];
  }
  return out;
}

Dims preserve_format_strides(const ConcreteTensor& x) {
  if (is_non_overlapping_and_dense(x.sizes, x.strides)) return x.strides;
  return contiguous_strides(x.sizes);
}

std::optional<Dims> view_strides(const ConcreteTensor& x, const Dims& new_sizes) {
  if (x.sizes.empty() || x.numel() == 0) return contiguous_strides(new_sizes);
  Dims out(new_sizes.size());
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = x.strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  // Walk the old dims from the innermost, grouping runs that are contiguous with each other;
  // each run must be covered exactly by a run of new dims.
  for (int64_t d = x.rank() - 1; d >= 0; --d) {
    tensor_numel *= x.sizes[d];
    bool run_ends =
        d == 0 || (x.sizes[d - 1] != 1 && x.strides[d - 1] != tensor_numel * chunk_base_stride);
    if (!run_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
      out[view_d] = view_numel * chunk_base_stride;
      view_numel *= new_sizes[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_base_stride = x.strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

Dims infer_size(const Dims& requested, int64_t total) {
  Dims out = requested;
  int64_t known = 1;
  std::optional<size_t> infer_at;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer_at) fail("only one dimension can be inferred");
      infer_at = i;
    } else if (out[i] < 0) {
      fail("invalid shape dimension " + std::to_string(out[i]));
    } else {
      known *= out[i];
    }
  }
  if (infer_at) {
    if (known == 0 || total % known != 0) {
      fail("shape '" + shape_text(requested) + "' is invalid for input of size " +
           std::to_string(total));
    }
    out[*infer_at] = total / known;
  } else if (known != total) {
    fail("shape '" + shape_text(requested) + "' is invalid for input of size " +
         std::to_string(total));
  }
  return out;
}

// --- dtypes ---

bool is_floating(DType d) {
  switch (d) {
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
    case DType::Float64:
    case DType::Float8_e4m3fn:
    case DType::Float8_e5m2:
    case DType::Float8_e4m3fnuz:
    case DType::Float8_e5m2fnuz:
    case DType::Float8_e8m0fnu:
      return true;
    default:
      return false;
  }
}

bool is_complex(DType d) {
  return d == DType::Complex32 || d == DType::Complex64 || d == DType::Complex128;
}

bool is_integral(DType d, bool include_bool) {
  switch (d) {
    case DType::Bool:
      return include_bool;
    case DType::UInt8:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64:
      return true;
    default:
      return false;
  }
}

namespace {

int category(DType d) {
  if (d == DType::Bool) return 0;
  if (is_integral(d, false)) return 1;
  if (is_floating(d)) return 2;
  if (is_complex(d)) return 3;
  return -1;
}

DType complex_of(DType f) {
  switch (f) {
    case DType::Float16:
      return DType::Complex32;
    case DType::Float64:
      return DType::Complex128;
    default:
      return DType::Complex64;
  }
}

DType float_of_complex(DType c) {
  switch (c) {
    case DType::Complex32:
      return DType::Float16;
    case DType::Complex128:
      return DType::Float64;
    default:
      return DType::Float32;
  }
}

int float_rank(DType d) {  // float16 and bfloat16 share a rank: together they give float32
  switch (d) {
    case DType::Float16:
    case DType::BFloat16:
      return 1;
    case DType::Float32:
      return 2;
    case DType::Float64:
      return 3;
    default:
      return 0;
  }
}

int signed_rank(DType d) {
  switch (d) {
    case DType::Int8:
      return 1;
    case DType::Int16:
      return 2;
    case DType::Int32:
      return 3;
    case DType::Int64:
      return 4;
    default:
      return 0;
  }
}

}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Unknown) return b;
  if (b == DType::Unknown) return a;
  int ca = category(a), cb = category(b);
  if (ca < 0 || cb < 0)
    fail("promotion of " + std::string(dtype_name(a)) + " and " + std::string(dtype_name(b)) +
         " is not supported");
  if (ca != cb) {
    if (ca < cb) std::swap(a, b), std::swap(ca, cb);
    // a is of the higher category.
    if (ca == 3 && cb == 2) return promote_types(a, complex_of(b));
    return a;
  }
  switch (ca) {
    case 1: {  // integers: uint8 with a signed type needs the next wider signed type
      if (a == DType::UInt8 || b == DType::UInt8) {
        DType other = a == DType::UInt8 ? b : a;
        if (other == DType::Int8) return DType::Int16;
        if (signed_rank(other) > 0) return other;
      }
      if (signed_rank(a) > 0 && signed_rank(b) > 0) return signed_rank(a) > signed_rank(b) ? a : b;
      fail("promotion of " + std::string(dtype_name(a)) + " and " + std::string(dtype_name(b)) +
           " is not supported");
    }
    case 2: {
      int ra = float_rank(a), rb = float_rank(b);
      if (ra == 0 || rb == 0)
        fail("promotion of " + std::string(dtype_name(a)) + " and " + std::string(dtype_name(b)) +
             " is not supported");
      if (ra == rb) return DType::Float32;  // float16 with bfloat16
      return ra > rb ? a : b;
    }
    case 3:
      return complex_of(promote_types(float_of_complex(a), float_of_complex(b)));
    default:
      return a;
  }
}

DType scalar_dtype_of(bool is_bool, bool is_integral_value, bool is_complex_value) {
  if (is_bool) return DType::Bool;
  if (is_integral_value) return DType::Int64;
  if (is_complex_value) return DType::Complex64;
  return DType::Float32;
}

namespace {

// Combines the result of a higher-priority class with a lower one: the lower class only counts
// when it is of a higher category (e.g. an int tensor times a float number is float).
DType combine_categories(DType higher, DType lower) {
  if (higher == DType::Unknown) return lower;
  if (lower == DType::Unknown) return higher;
  if (is_complex(higher)) return higher;
  if (is_complex(lower)) return is_floating(higher) ? complex_of(higher) : lower;
  if (is_floating(higher)) return higher;
  if (higher == DType::Bool || is_floating(lower)) return promote_types(higher, lower);
  return higher;
}

}  // namespace

DType result_type(std::span<const PromotionOperand> operands) {
  DType dim_result = DType::Unknown, zero_result = DType::Unknown, scalar_result = DType::Unknown;
  for (const PromotionOperand& o : operands) {
    DType& slot = o.is_scalar ? scalar_result : (o.rank > 0 ? dim_result : zero_result);
    slot = promote_types(slot, o.dtype);
  }
  return combine_categories(dim_result, combine_categories(zero_result, scalar_result));
}

}  // namespace remat::shape_rules
