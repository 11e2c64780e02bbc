#include "remat/ir/traceback.h"

#include <cctype>

namespace remat {
namespace {
std::string_view strip(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}
}  // namespace

std::vector<TracebackFrame> parse_traceback(std::string_view trace) {
  std::vector<std::string_view> lines;
  std::string_view t = strip(trace);
  size_t start = 0;
  while (start <= t.size()) {
    size_t nl = t.find('\n', start);
    lines.push_back(t.substr(start, nl == std::string_view::npos ? nl : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  std::vector<TracebackFrame> frames;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    std::string_view l = strip(lines[i]);
    if (!l.starts_with("File \"")) continue;
    size_t q = l.find("\", line ", 6);
    if (q == std::string_view::npos || q == 6) continue;
    size_t num_start = q + 8;
    size_t comma = l.find(", in ", num_start);
    if (comma == std::string_view::npos || comma == num_start || comma + 5 >= l.size()) continue;
    std::string_view num = l.substr(num_start, comma - num_start);
    bool digits = true;
    for (char c : num) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits) continue;
    frames.push_back({l.substr(6, q - 6), num, l.substr(comma + 5), strip(lines[i + 1])});
  }
  return frames;
}

}  // namespace remat
