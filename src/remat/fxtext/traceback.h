// The frames of a Python traceback as node.meta["stack_trace"] holds it
// (`  File "f.py", line 3, in fn\n    code\n`), for the printer's `# File:` comment and for the
// stacks of trace logs.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace remat::fxtext {

struct TracebackFrame {
  std::string_view file;
  std::string_view line;  ///< the digits, as written
  std::string_view function;
  std::string_view code;  ///< the line after the frame, stripped
};

/// Every `File "(.+)", line (\d+), in (.+)` line that has a line after it (its code), outermost
/// first; other lines are skipped. Views point into `trace`.
std::vector<TracebackFrame> parse_traceback(std::string_view trace);

/// The innermost frame of `trace` (the line of the model that made a node), if it has one.
std::optional<TracebackFrame> innermost_frame(std::string_view trace);

}  // namespace remat::fxtext
