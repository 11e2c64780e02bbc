#include "remat/support/diagnostic.h"

#include <algorithm>
#include <string_view>

namespace remat {
namespace {

// No message grows with the input (docs/security.md): a one-line 5 MB file must not print 5 MB.
constexpr size_t kExcerptBytes = 120;  // of the source line, around the column
constexpr size_t kMessageBytes = 320;  // file names, JSON paths and messages each

bool continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// `text` cut to at most `max` bytes (at a character boundary), marked where it is cut.
std::string bounded(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  size_t end = max;
  while (end > 0 && continuation_byte(text[end])) --end;
  return std::string(text.substr(0, end)) + "... (" + std::to_string(text.size() - end) +
         " more bytes)";
}

}  // namespace

std::string Diagnostic::format() const {
  // A position needs a name for its input; an error about no input in particular has neither.
  std::string out = file.empty() && line == 0 ? std::string()
                    : file.empty()            ? std::string("<input>")
                                              : bounded(file, kMessageBytes);
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (col > 0) out += ':' + std::to_string(col);
  }
  const char* kind = warning ? "warning: " : "error: ";
  out += out.empty() ? kind : std::string(": ") + kind;
  if (!path.empty()) out += "at " + bounded(path, kMessageBytes) + ": ";
  out += bounded(message, kMessageBytes);
  if (!source_line.empty()) {
    // At most kExcerptBytes of the line around the column, `...` where it is cut.
    size_t at = col > 0 ? std::min(static_cast<size_t>(col - 1), source_line.size()) : 0;
    size_t begin = at > kExcerptBytes / 2 ? at - kExcerptBytes / 2 : 0;
    while (begin > 0 && continuation_byte(source_line[begin])) --begin;
    size_t end = std::min(source_line.size(), begin + kExcerptBytes);
    while (end < source_line.size() && continuation_byte(source_line[end])) ++end;
    std::string excerpt = begin > 0 ? "..." : "";
    size_t caret = at - begin + excerpt.size();
    excerpt.append(source_line, begin, end - begin);
    if (end < source_line.size()) excerpt += "...";
    out += "\n  " + excerpt + "\n  ";
    if (col > 0) out += std::string(caret, ' ') + '^';
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
