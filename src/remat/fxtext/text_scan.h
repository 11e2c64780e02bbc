// Scanning one line of Python text: quotes and brackets, the way every reader of FX text (the
// readable parser, the report) has to skip them.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace remat::fxtext {

/// The lines of `text`, without their `\n` (a final newline ends the last line; it starts none).
std::vector<std::string_view> split_lines(std::string_view text);

/// `s` without leading spaces and tabs and trailing spaces, tabs and carriage returns.
std::string_view trim(std::string_view s);

/// The first position from `from` on, outside quoted strings, where `stop(c, i, depth)` holds;
/// `depth` counts the open brackets after `c` is taken into account. npos when none.
template <class Stop>
size_t find_outside_quotes(std::string_view s, size_t from, Stop&& stop) {
  char quote = 0;
  int depth = 0;
  for (size_t i = from; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    if (stop(c, i, depth)) return i;
  }
  return std::string_view::npos;
}

/// Calls `part(p)` for each piece of `s` split at `sep` outside of quoted strings and brackets;
/// stops early when it returns false.
template <class Part>
void for_each_top_level(std::string_view s, std::string_view sep, Part&& part) {
  size_t start = 0;
  while (true) {
    size_t at = find_outside_quotes(s, start, [&](char c, size_t i, int depth) {
      return depth == 0 && c == sep[0] && s.substr(i, sep.size()) == sep;
    });
    if (at == std::string_view::npos) break;
    if (!part(s.substr(start, at - start))) return;
    start = at + sep.size();
  }
  part(s.substr(start));
}

/// The pieces of `s` split at `sep` outside of quoted strings and brackets, into `parts`.
void split_top_level(std::string_view s, std::string_view sep,
                     std::vector<std::string_view>& parts);
std::vector<std::string_view> split_top_level(std::string_view s, std::string_view sep);

/// The position of the first `#` outside quotes, or npos.
size_t comment_start(std::string_view s);

// ASCII only, like the names torch.fx prints; inline, not the locale-aware <cctype> calls (the
// printer, the parser and the report test every byte of long graphs).
/// `[0-9]`.
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
/// `[A-Za-z_]`: what starts a Python name.
inline bool is_identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
/// `[A-Za-z0-9_]`.
inline bool is_identifier_char(char c) {
  return is_identifier_start(c) || is_digit(c);
}

}  // namespace remat::fxtext
