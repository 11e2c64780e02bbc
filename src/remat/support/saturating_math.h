// Sizes, bytes and FLOPs from someone else's graph: products and sums that stop at the int64
// limit instead of overflowing (docs/security.md). The readers refuse tensors of more than
// kMaxTensorElements elements; these keep what is computed from them (a matmul's FLOPs, a
// graph's bytes) defined on any input.
#pragma once

#include <cstdint>
#include <limits>

namespace remat {

/// The most elements a tensor of a graph remat reads may hold (4 TiB of float32): far beyond any
/// tensor of a model, far enough below 2^63 that bytes and sums of them stay exact.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

inline constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

/// a * b, or kSaturated (with the sign of the product) where it would overflow.
constexpr int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? -kSaturated : kSaturated;
  return r;
}

/// a + b, or +-kSaturated where it would overflow.
constexpr int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? -kSaturated : kSaturated;
  return r;
}

}  // namespace remat
