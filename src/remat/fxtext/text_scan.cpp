#include "remat/fxtext/text_scan.h"

namespace remat::fxtext {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string_view::npos ? nl : nl - start));
    start = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  // A loop, not find_first_not_of: that asks memchr about each byte (a report trims every line).
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  size_t b = 0, e = s.size();
  while (b < e && blank(s[b])) ++b;
  while (e > b && blank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

void split_top_level(std::string_view s, std::string_view sep,
                     std::vector<std::string_view>& parts) {
  parts.clear();
  if (s.find(sep[0]) == std::string_view::npos) {  // most lines: no separator at all
    parts.push_back(s);
    return;
  }
  for_each_top_level(s, sep, [&](std::string_view p) {
    parts.push_back(p);
    return true;
  });
}

std::vector<std::string_view> split_top_level(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> parts;
  split_top_level(s, sep, parts);
  return parts;
}

size_t comment_start(std::string_view s) {
  return find_outside_quotes(s, 0, [](char c, size_t, int) { return c == '#'; });
}

}  // namespace remat::fxtext
