#include "remat/support/diagnostic.h"

namespace remat {

std::string Diagnostic::format() const {
  // A position needs a name for its input; an error about no input in particular has neither.
  std::string out = file.empty() && line == 0 ? std::string()
                    : file.empty()            ? std::string("<input>")
                                              : file;
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (col > 0) out += ':' + std::to_string(col);
  }
  const char* kind = warning ? "warning: " : "error: ";
  out += out.empty() ? kind : std::string(": ") + kind;
  if (!path.empty()) out += "at " + path + ": ";
  out += message;
  if (!source_line.empty()) {
    out += "\n  " + source_line + "\n  ";
    if (col > 0) out += std::string(static_cast<size_t>(col - 1), ' ') + '^';
  }
  return out;
}

std::string format_all(const Diagnostics& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += d.format() + '\n';
  return out;
}

Diagnostic error_message(std::string message) {
  Diagnostic d;
  d.message = std::move(message);
  return d;
}

Diagnostic file_error(std::string file, std::string message) {
  Diagnostic d;
  d.file = std::move(file);
  d.message = std::move(message);
  return d;
}

}  // namespace remat
