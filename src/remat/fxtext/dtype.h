// DType: torch dtypes with their canonical names, print abbreviations and item sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace remat {

/// Every torch dtype. `Unknown` marks metadata that names no dtype.
enum class DType : uint8_t {
  Unknown,
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex32,
  Complex64,
  Complex128,
  Float8_e4m3fn,
  Float8_e5m2,
  Float8_e4m3fnuz,
  Float8_e5m2fnuz,
  Float8_e8m0fnu,
  Float4_e2m1fn_x2,
  Bits16,
  Bits1x8,
  Bits2x4,
  Bits4x2,
  Bits8,
  QInt8,
  QUInt8,
  QInt32,
  QUInt4x2,
  QUInt2x4,
};

/// `torch.float32`; "" for Unknown.
std::string_view dtype_name(DType d);
/// Parses the canonical `torch.<name>` spelling.
std::optional<DType> parse_dtype(std::string_view name);
/// torch.fx's print abbreviation (`f32`, `bf16`, `b8`); empty for dtypes without one.
std::string_view dtype_abbr(DType d);
/// Parses an abbreviation (`f32`) back to its dtype.
std::optional<DType> parse_dtype_abbr(std::string_view abbr);
/// Bytes per element (0 for Unknown).
int dtype_itemsize(DType d);

}  // namespace remat
