// Appending a decimal integer to a string without a temporary (std::to_string allocates one;
// the printer writes several integers per node).
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

namespace remat {

inline void append_int(std::string& out, int64_t value) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}

}  // namespace remat
