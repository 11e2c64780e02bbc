#include "remat/support/float_repr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace remat {
namespace {

TEST(FloatRepr, MatchesPythonRepr) {
  // Expected strings are what CPython 3.11 prints for repr(x).
  EXPECT_EQ(python_float_repr(1.0), "1.0");
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(0.5), "0.5");
  EXPECT_EQ(python_float_repr(-0.0), "-0.0");
  EXPECT_EQ(python_float_repr(0.0), "0.0");
  EXPECT_EQ(python_float_repr(1e-05), "1e-05");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(1.5e-07), "1.5e-07");
  EXPECT_EQ(python_float_repr(123456789012345.0), "123456789012345.0");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(python_float_repr(0.17677669529663687), "0.17677669529663687");
  EXPECT_EQ(python_float_repr(1.7976931348623157e+308), "1.7976931348623157e+308");
  EXPECT_EQ(python_float_repr(5e-324), "5e-324");
  EXPECT_EQ(python_float_repr(-2.5), "-2.5");
  EXPECT_EQ(python_float_repr(100.0), "100.0");
  EXPECT_EQ(python_float_repr(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(python_float_repr(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(python_float_repr(std::nan("")), "nan");
}

TEST(FloatRepr, RoundTripsRandomValues) {
  uint64_t state = 12345;
  for (int i = 0; i < 10000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    double x;
    uint64_t bits = state;
    std::memcpy(&x, &bits, sizeof x);
    if (!std::isfinite(x)) continue;
    std::string s = python_float_repr(x);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), x) << s;
  }
}

}  // namespace
}  // namespace remat
