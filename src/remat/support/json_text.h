// Small helpers to write JSON text: escaped strings, numbers, raw pieces.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace remat::json {

/// Appends `s` as a JSON string literal (quotes, escapes; UTF-8 passes through).
void append_string(std::string& out, std::string_view s);
/// `s` as a JSON string literal.
std::string quoted(std::string_view s);
/// Appends a finite double in the shortest round-trip form (Python repr: `1.0`, `1e-05`).
void append_double(std::string& out, double v);
void append_int(std::string& out, int64_t v);

}  // namespace remat::json
