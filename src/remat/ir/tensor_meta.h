// TensorMeta: what a node's tensor value looks like (dtype, shape, stride, device, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "remat/fxtext/dtype.h"
#include "remat/ir/layout.h"
#include "remat/ir/raw_json.h"
#include "remat/ir/symint.h"
#include "remat/support/clone_ptr.h"
#include "remat/support/interned_string.h"

namespace remat {

namespace detail {
struct DimsRecord;
}

/// Metadata of one tensor value. Sizes and strides are interned (shapes repeat across a graph),
/// so a TensorMeta is 32 bytes and copying it is cheap; node meta holds interned TensorMetas.
class TensorMeta {
 public:
  TensorMeta() = default;
  TensorMeta(DType dtype, std::span<const SymInt> sizes,
             std::optional<std::span<const SymInt>> strides = std::nullopt,
             InternedString device = {});

  DType dtype = DType::Unknown;
  MemoryFormat memory_format = MemoryFormat::Unknown;
  std::optional<bool> requires_grad;
  std::optional<bool> is_quantized;
  InternedString device;  ///< `cpu`, `cuda:0`, `meta`; null when unknown

  [[nodiscard]] size_t rank() const;
  [[nodiscard]] std::span<const SymInt> sizes() const;
  /// Strides, or nullopt when the source did not record them.
  [[nodiscard]] std::optional<std::span<const SymInt>> strides() const;
  void set_shape(std::span<const SymInt> sizes,
                 std::optional<std::span<const SymInt>> strides = std::nullopt);
  /// Contiguous (row-major) strides for `sizes`; symbolic sizes give symbolic products.
  /// Why `sizes`/`strides` describe no tensor remat takes from a file, or nullopt: a negative
  /// size or stride, or more than kMaxTensorElements elements (support/saturating_math.h).
  static std::optional<std::string> shape_problem(std::span<const SymInt> sizes,
                                                  std::optional<std::span<const SymInt>> strides);
  static std::vector<SymInt> contiguous_strides(std::span<const SymInt> sizes);

  /// Number of elements, or nullopt when a size is symbolic.
  [[nodiscard]] std::optional<int64_t> numel() const;
  /// numel × itemsize, or nullopt when symbolic or the dtype is unknown.
  [[nodiscard]] std::optional<int64_t> nbytes() const;
  /// A symbolic shape's element count under the live graph's size hints (what PyTorch's
  /// partitioner sizes it by: `optimization_hint(numel, fallback=4096)`); nullopt when concrete
  /// or unknown. Kept with the interned dims (set_shape clears it).
  [[nodiscard]] std::optional<int64_t> numel_hint() const;
  void set_numel_hint(std::optional<int64_t> hint);
  /// nbytes(), or for a symbolic shape numel_hint × itemsize: what the partitioner weighs.
  [[nodiscard]] std::optional<int64_t> estimated_nbytes() const;

  /// Keys of the source's tensor metadata that remat does not interpret (null when none).
  [[nodiscard]] const RawJsonFields* extras() const { return extras_.get(); }
  RawJsonFields& mutable_extras() { return extras_.ensure(); }

  friend bool operator==(const TensorMeta& a, const TensorMeta& b);
  [[nodiscard]] size_t hash() const;

  /// The process-wide shared copy of `t` (node metadata repeats; each distinct value is kept
  /// once). Thread-safe; the storage lives until the process ends.
  static const TensorMeta* intern(const TensorMeta& t);

 private:
  const detail::DimsRecord* dims_ = nullptr;  // null: rank 0 without strides
  ClonePtr<RawJsonFields> extras_;
};

}  // namespace remat
