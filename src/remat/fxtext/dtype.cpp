#include "remat/fxtext/dtype.h"

#include <array>

namespace remat {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::string_view abbr;  // torch/utils/_dtype_abbrs.py; empty where torch has none
  int itemsize;
};

constexpr std::array<DTypeInfo, 33> kDTypes{{
    {DType::Unknown, "", "", 0},
    {DType::Bool, "torch.bool", "b8", 1},
    {DType::UInt8, "torch.uint8", "u8", 1},
    {DType::Int8, "torch.int8", "i8", 1},
    {DType::Int16, "torch.int16", "i16", 2},
    {DType::Int32, "torch.int32", "i32", 4},
    {DType::Int64, "torch.int64", "i64", 8},
    {DType::UInt16, "torch.uint16", "u16", 2},
    {DType::UInt32, "torch.uint32", "u32", 4},
    {DType::UInt64, "torch.uint64", "u64", 8},
    {DType::Float16, "torch.float16", "f16", 2},
    {DType::BFloat16, "torch.bfloat16", "bf16", 2},
    {DType::Float32, "torch.float32", "f32", 4},
    {DType::Float64, "torch.float64", "f64", 8},
    {DType::Complex32, "torch.complex32", "c32", 4},
    {DType::Complex64, "torch.complex64", "c64", 8},
    {DType::Complex128, "torch.complex128", "c128", 16},
    {DType::Float8_e4m3fn, "torch.float8_e4m3fn", "f8e4m3fn", 1},
    {DType::Float8_e5m2, "torch.float8_e5m2", "f8e5m2", 1},
    {DType::Float8_e4m3fnuz, "torch.float8_e4m3fnuz", "f8e4m3fnuz", 1},
    {DType::Float8_e5m2fnuz, "torch.float8_e5m2fnuz", "f8e5m2fnuz", 1},
    {DType::Float8_e8m0fnu, "torch.float8_e8m0fnu", "f8e8m0fnu", 1},
    {DType::Float4_e2m1fn_x2, "torch.float4_e2m1fn_x2", "f4e2m1fnx2", 1},
    {DType::Bits16, "torch.bits16", "b16", 2},
    {DType::Bits1x8, "torch.bits1x8", "b1x8", 1},
    {DType::Bits2x4, "torch.bits2x4", "", 1},
    {DType::Bits4x2, "torch.bits4x2", "", 1},
    {DType::Bits8, "torch.bits8", "", 1},
    {DType::QInt8, "torch.qint8", "", 1},
    {DType::QUInt8, "torch.quint8", "", 1},
    {DType::QInt32, "torch.qint32", "", 4},
    {DType::QUInt4x2, "torch.quint4x2", "", 1},
    {DType::QUInt2x4, "torch.quint2x4", "", 1},
}};

const DTypeInfo& info(DType d) {
  return kDTypes[static_cast<size_t>(d)];
}

}  // namespace

std::string_view dtype_name(DType d) {
  return info(d).name;
}
std::string_view dtype_abbr(DType d) {
  return info(d).abbr;
}
int dtype_itemsize(DType d) {
  return info(d).itemsize;
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const DTypeInfo& i : kDTypes)
    if (!i.name.empty() && i.name == name) return i.dtype;
  return std::nullopt;
}

std::optional<DType> parse_dtype_abbr(std::string_view abbr) {
  for (const DTypeInfo& i : kDTypes)
    if (!i.abbr.empty() && i.abbr == abbr) return i.dtype;
  return std::nullopt;
}

}  // namespace remat
