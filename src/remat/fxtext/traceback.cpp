#include "remat/fxtext/traceback.h"

#include <algorithm>

#include "remat/fxtext/text_scan.h"

namespace remat::fxtext {

std::vector<TracebackFrame> parse_traceback(std::string_view trace) {
  std::vector<std::string_view> lines = split_lines(trace);
  std::vector<TracebackFrame> frames;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    std::string_view l = trim(lines[i]);
    if (!l.starts_with("File \"")) continue;
    size_t q = l.find("\", line ", 6);
    if (q == std::string_view::npos || q == 6) continue;
    size_t num_start = q + 8;
    size_t comma = l.find(", in ", num_start);
    if (comma == std::string_view::npos || comma == num_start || comma + 5 >= l.size()) continue;
    std::string_view num = l.substr(num_start, comma - num_start);
    if (!std::all_of(num.begin(), num.end(), is_digit)) continue;
    frames.push_back({l.substr(6, q - 6), num, l.substr(comma + 5), trim(lines[i + 1])});
  }
  return frames;
}

std::optional<TracebackFrame> innermost_frame(std::string_view trace) {
  std::vector<TracebackFrame> frames = parse_traceback(trace);
  if (frames.empty()) return std::nullopt;
  return frames.back();
}

}  // namespace remat::fxtext
