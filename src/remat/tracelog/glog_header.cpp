#include "remat/tracelog/glog_header.h"

#include <fmt/format.h>

namespace remat::tracelog {
namespace {

bool digits(std::string_view s, size_t at, size_t n, int& out) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

}  // namespace

std::string GlogHeader::iso_timestamp(int year) const {
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", year, month, day, hour, minute,
                     second, microsecond);
}

bool parse_glog_header(std::string_view s, GlogHeader& h, size_t& json_start) {
  // L MMDD space HH:MM:SS . ffffff space
  if (s.size() < 23) return false;
  char level = s[0];
  if (level != 'V' && level != 'I' && level != 'W' && level != 'E' && level != 'C') return false;
  if (!digits(s, 1, 2, h.month) || !digits(s, 3, 2, h.day) || s[5] != ' ') return false;
  if (!digits(s, 6, 2, h.hour) || s[8] != ':' || !digits(s, 9, 2, h.minute) || s[11] != ':' ||
      !digits(s, 12, 2, h.second))
    return false;
  // tlparse's regex has an unescaped '.', so any character separates seconds and microseconds.
  if (!digits(s, 15, 6, h.microsecond) || s[21] != ' ') return false;
  h.level = level;
  size_t i = 22;
  uint64_t thread = 0;
  size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9')
    thread = thread * 10 + static_cast<uint64_t>(s[i++] - '0');
  if (i == start) return false;
  h.thread = thread;
  // `(?<thread>\d+)(?<pathname>[^:]+):(?<line>\d+)\] `: the path follows the digits directly
  // (PyTorch writes a space, which becomes part of the path in tlparse; we drop it).
  if (i < s.size() && s[i] == ' ') ++i;
  size_t colon = s.find(':', i);
  if (colon == std::string_view::npos || colon == i) return false;
  size_t j = colon + 1;
  uint64_t line = 0;
  size_t line_start = j;
  while (j < s.size() && s[j] >= '0' && s[j] <= '9')
    line = line * 10 + static_cast<uint64_t>(s[j++] - '0');
  if (j == line_start || s.substr(j, 2) != "] " || j + 2 >= s.size()) return false;
  h.pathname = std::string(s.substr(i, colon - i));
  h.lineno = line;
  json_start = j + 2;
  return true;
}

std::string format_glog_header(const GlogHeader& h) {
  return fmt::format("{}{:02}{:02} {:02}:{:02}:{:02}.{:06} {} {}:{}] ", h.level, h.month, h.day,
                     h.hour, h.minute, h.second, h.microsecond, h.thread, h.pathname, h.lineno);
}

bool has_glog_line(std::string_view head) {
  GlogHeader header;
  size_t json_start = 0;
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);  // a byte order mark
  while (!head.empty()) {
    size_t nl = head.find('\n');
    if (parse_glog_header(head.substr(0, nl), header, json_start)) return true;
    if (nl == std::string_view::npos) break;
    head.remove_prefix(nl + 1);
  }
  return false;
}

}  // namespace remat::tracelog
