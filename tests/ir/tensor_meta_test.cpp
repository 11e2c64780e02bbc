#include "remat/ir/tensor_meta.h"

#include <gtest/gtest.h>

#include <array>

namespace remat {
namespace {

TEST(SymInt, ConcreteAndSymbolic) {
  SymInt a(-7);
  EXPECT_FALSE(a.is_symbolic());
  EXPECT_EQ(a.value(), -7);
  SymInt s = SymInt::symbolic("s0 + 1");
  EXPECT_TRUE(s.is_symbolic());
  EXPECT_EQ(s.expression(), "s0 + 1");
  EXPECT_EQ(s.to_string(), "s0 + 1");
  EXPECT_TRUE(s == SymInt::symbolic("s0 + 1"));
  EXPECT_FALSE(s == SymInt(1));
  EXPECT_EQ(sizeof(SymInt), 8U);
  EXPECT_EQ(SymInt(SymInt::kMax).value(), SymInt::kMax);
  EXPECT_EQ(SymInt(SymInt::kMin).value(), SymInt::kMin);
}

TEST(TensorMeta, ShapesAreInternedAndCompared) {
  std::array<SymInt, 2> sizes{SymInt(4), SymInt(4)};
  std::array<SymInt, 2> strides{SymInt(4), SymInt(1)};
  TensorMeta a(DType::Float32, sizes, std::span<const SymInt>(strides), InternedString("cpu"));
  TensorMeta b(DType::Float32, sizes, std::span<const SymInt>(strides), InternedString("cpu"));
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.sizes().data(), b.sizes().data()) << "identical shapes share storage";
  EXPECT_EQ(a.rank(), 2U);
  EXPECT_EQ(a.numel(), 16);
  EXPECT_EQ(a.nbytes(), 64);
  TensorMeta no_strides(DType::Float32, sizes);
  EXPECT_FALSE(no_strides.strides().has_value());
  EXPECT_FALSE(a == no_strides);
  TensorMeta scalar(DType::Int64, {});
  EXPECT_EQ(scalar.rank(), 0U);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.nbytes(), 8);
  EXPECT_LE(sizeof(TensorMeta), 32U);
}

TEST(TensorMeta, ContiguousStridesAndSymbolicNumel) {
  std::array<SymInt, 3> sizes{SymInt(2), SymInt(3), SymInt(5)};
  auto strides = TensorMeta::contiguous_strides(sizes);
  ASSERT_EQ(strides.size(), 3U);
  EXPECT_EQ(strides[0].value(), 15);
  EXPECT_EQ(strides[1].value(), 5);
  EXPECT_EQ(strides[2].value(), 1);
  std::array<SymInt, 2> sym{SymInt::symbolic("s0"), SymInt(4)};
  auto sym_strides = TensorMeta::contiguous_strides(sym);
  EXPECT_EQ(sym_strides[0].value(), 4);
  TensorMeta t(DType::Float16, sym);
  EXPECT_FALSE(t.numel().has_value());
  EXPECT_FALSE(t.nbytes().has_value());
}

}  // namespace
}  // namespace remat
