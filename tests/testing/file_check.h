// A small FileCheck of our own: the `# CHECK:` lines of a text test, matched against what a
// command printed (tests/passes/*.txt). Patterns are literal text, matched in order:
//   # CHECK: TEXT       TEXT on this line after the last match, or on a later line
//   # CHECK-NEXT: TEXT  TEXT on the line right after the last match's
//   # CHECK-SAME: TEXT  TEXT on the last match's line, after it
//   # CHECK-NOT: TEXT   TEXT nowhere between the last match and the next (or the end)
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace remat::testing {

struct CheckLine {
  enum class Kind { Check, Next, Same, Not } kind;
  std::string text;
  int line;  ///< in the test file, 1-based
};

/// The check lines of `test` (a `# CHECK...:` at the start of a line, after blanks). A line
/// that starts `# CHECK` but is none of the four kinds is returned as an error in `bad`.
std::vector<CheckLine> check_lines(std::string_view test, std::vector<std::string>* bad = nullptr);

/// Matches `checks` against `output`. Returns one message per failure ("file:line: CHECK-NEXT:
/// expected 'x' on output line 7, found '...'"); empty when every check holds.
std::vector<std::string> file_check(const std::vector<CheckLine>& checks, std::string_view output,
                                    const std::string& file);

}  // namespace remat::testing
