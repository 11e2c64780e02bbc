// Diagnostic: one user-facing problem with its place (file:line:col or a JSON path).
#pragma once

#include <string>
#include <vector>

namespace remat {

/// A problem found in user input. `line`/`col` are 1-based and 0 when unknown; `path` is a
/// JSON-style location such as `nodes[12].args[1]` when the input is structured data.
struct Diagnostic {
  std::string file;
  int line = 0;
  int col = 0;
  std::string path;
  std::string message;
  std::string source_line;  ///< the offending line of text, shown with a caret when set
  bool warning = false;     ///< printed as `warning:`: the input is used all the same

  /// `file:line:col: error: message`, or `file: error: at path: message`, plus source and caret.
  [[nodiscard]] std::string format() const;
};

using Diagnostics = std::vector<Diagnostic>;

/// A diagnostic that has a message and no place (the caller may add the file).
Diagnostic error_message(std::string message);
/// A problem with a whole file or folder: `file: error: message` (the path as the user gave it).
Diagnostic file_error(std::string file, std::string message);

/// Formats every diagnostic, one per line (plus source/caret lines where present).
std::string format_all(const Diagnostics& diagnostics);

}  // namespace remat
