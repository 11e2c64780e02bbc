#include "remat/print/python_repr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "remat/print/meta_text.h"

namespace remat {
namespace {

TEST(PythonRepr, Strings) {
  // Expected values are CPython 3.11's repr().
  EXPECT_EQ(python_str_repr("BNSD"), "'BNSD'");
  EXPECT_EQ(python_str_repr("it's"), "\"it's\"");
  EXPECT_EQ(python_str_repr("a\"b"), "'a\"b'");
  EXPECT_EQ(python_str_repr("both'\""), "'both\\'\"'");
  EXPECT_EQ(python_str_repr("tab\tnl\ncr\rbs\\"), "'tab\\tnl\\ncr\\rbs\\\\'");
  EXPECT_EQ(python_str_repr("\x07\xc2\xa0\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80"),
            "'\\x07\\xa0\xc3\xa9\\u2028\xf0\x9f\x98\x80'");
  EXPECT_EQ(python_str_repr(""), "''");
}

TEST(PythonRepr, ComplexAndDevice) {
  EXPECT_EQ(python_complex_repr(1, 2), "(1+2j)");
  EXPECT_EQ(python_complex_repr(1.5, -2), "(1.5-2j)");
  EXPECT_EQ(python_complex_repr(0, 1), "1j");
  EXPECT_EQ(python_complex_repr(-0.0, 1), "(-0+1j)");
  EXPECT_EQ(python_complex_repr(0, -1), "-1j");
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(python_complex_repr(std::nan(""), inf), "(nan+infj)");
  EXPECT_EQ(python_device_repr("cuda:0"), "device(type='cuda', index=0)");
  EXPECT_EQ(python_device_repr("cpu"), "device(type='cpu')");
}

TEST(PythonRepr, PformatWrapsLongStringsLikePprint) {
  EXPECT_EQ(pformat_str("short"), "'short'");
  // pprint.pformat('word ' * 30, width=80, compact=True) in CPython 3.11:
  std::string words;
  for (int i = 0; i < 30; ++i) words += "word ";
  EXPECT_EQ(pformat_str(words),
            "('word word word word word word word word word word word word word word word '\n"
            " 'word word word word word word word word word word word word word word word ')");
}

}  // namespace
}  // namespace remat
