// Small helpers for JSON text: escaped strings (written and read back), numbers, raw pieces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace remat::json {

/// Appends `s` as a JSON string literal (quotes, escapes; UTF-8 passes through).
void append_string(std::string& out, std::string_view s);
/// `s` as a JSON string literal.
std::string quoted(std::string_view s);
/// The text of a JSON string literal (`"a\\nb"` -> a, newline, b; `\\uXXXX` and surrogate pairs as
/// UTF-8); nullopt when `literal` is not exactly one well-formed string.
std::optional<std::string> unquote(std::string_view literal);
/// Appends a finite double in the shortest round-trip form (Python repr: `1.0`, `1e-05`).
void append_double(std::string& out, double v);
void append_int(std::string& out, int64_t v);

}  // namespace remat::json
