#include "remat/support/python_repr.h"

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

TEST(MetaText, Torch113StackTraceSummaries) {
  // torch.fx 1.13's append_stacktrace_summary: the context lines, the first frame's file and
  // line, and the line after it, joined by ", ".
  EXPECT_EQ(MetaText::summary_1_13("  File \"a.py\", line 3, in forward\n    y = x.sin()\n"),
            "File: a.py:3, code: y = x.sin()");
  EXPECT_EQ(MetaText::summary_1_13("Gradient addition node due to multiple use of tensor around:\n"
                                   "  File \"m.py\", line 12, in f\n    z = w @ v\n"
                                   "  File \"n.py\", line 4, in g\n    q = 1\n"),
            "Gradient addition node due to multiple use of tensor around:, File: m.py:12, code: z "
            "= w @ v");
  EXPECT_EQ(MetaText::summary_1_13("only context\n  second line  \n"), "only context, second line");
  // A frame line with nothing after it gives no File/code part.
  EXPECT_EQ(MetaText::summary_1_13("ctx\nFile \"a.py\", line 3, in f"), "ctx");
  // The file group is greedy, like the regex's `(.+)`.
  EXPECT_EQ(MetaText::summary_1_13("File \"a\", line 9, in b\", line 3, in f\n  c\n"),
            "File: a\", line 9, in b:3, code: c");
  // Not a frame line: only the code part.
  EXPECT_EQ(MetaText::summary_1_13("File without quotes\n  c\n"), "code: c");
}

}  // namespace
}  // namespace remat
