// UTF-8 encoding of code points, for the readers that decode escapes (JSON's `\uXXXX`,
// Python's `\N`, `\u`, `\U`, `\x`).
#pragma once

#include <cstdint>
#include <string>

namespace remat {

/// Appends code point `cp` (at most 0x10FFFF) to `out` as UTF-8.
void append_utf8(std::string& out, uint32_t cp);

}  // namespace remat
