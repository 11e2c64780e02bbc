// Tokens of the Python that readable FX code contains (one line at a time), and Python's words:
// the one lexer of the readable parser, and the keywords the report's highlighter and the
// naming rules share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace remat::fxtext {

enum class TokenKind : uint8_t { Name, Int, Float, Imaginary, String, Op, End };

struct Token {
  TokenKind kind;
  std::string_view text;  ///< the source text of the token
  size_t column;          ///< 0-based offset in the line
  std::string value;      ///< decoded contents of a String token
};

/// Tokenizes one line of Python into `out` (cleared first; its capacity is reused). On a
/// malformed token (an unterminated string, a bad escape, invalid UTF-8 in a string, a character
/// Python has no token for) returns false and sets `error_column` and `error`.
bool tokenize_python(std::string_view line, std::vector<Token>& out, size_t& error_column,
                     std::string& error);

/// Python 3.11's `keyword.kwlist`.
bool is_python_keyword(std::string_view word);

}  // namespace remat::fxtext
