#include "remat/fxtext/python_lexer.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "remat/fxtext/text_scan.h"
#include "remat/support/utf8.h"

namespace remat::fxtext {
namespace {

constexpr auto digit = is_digit;
constexpr auto name_start = is_identifier_start;
constexpr auto name_char = is_identifier_char;

/// Length of the valid UTF-8 sequence at `s[i]`, or 0 (Python source text is valid UTF-8).
size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  uint32_t cp = c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

/// The length of the operator or delimiter at `s[i]`, the longest that matches (`**=` over `**`
/// and `*`), or 0: `** // << >>` and their `=` forms, `<= >= == !=`, the augmented assignments
/// `+= -= *= /= %= @= &= |= ^=`, and the single characters `()[]{},:.=+-*/%@<>&|^~;`.
size_t operator_length(std::string_view s, size_t i) {
  char c = s[i];
  char next = i + 1 < s.size() ? s[i + 1] : '\0';
  if ((c == '*' || c == '/' || c == '<' || c == '>') && next == c)
    return i + 2 < s.size() && s[i + 2] == '=' ? 3 : 2;
  if (next == '=' && std::string_view("<>=!+-*/%@&|^").find(c) != std::string_view::npos) return 2;
  switch (c) {
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case ',':
    case ':':
    case '.':
    case '=':
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
    case '@':
    case '<':
    case '>':
    case '&':
    case '|':
    case '^':
    case '~':
    case ';':
      return 1;
    default:
      return 0;
  }
}

}  // namespace

bool tokenize_python(std::string_view line, std::vector<Token>& out, size_t& error_column,
                     std::string& error) {
  out.clear();
  size_t i = 0;
  auto fail = [&](size_t col, std::string message) {
    error_column = col;
    error = std::move(message);
    return false;
  };
  while (i < line.size()) {
    char c = line[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    size_t start = i;
    if (name_start(c)) {
      while (i < line.size() && name_char(line[i])) ++i;
      out.push_back({TokenKind::Name, line.substr(start, i - start), start, {}});
      continue;
    }
    if (digit(c)) {
      bool is_float = false;
      while (i < line.size() && digit(line[i])) ++i;
      if (i < line.size() && line[i] == '.' && i + 1 < line.size() && digit(line[i + 1])) {
        is_float = true;
        ++i;
        while (i < line.size() && digit(line[i])) ++i;
      } else if (i < line.size() && line[i] == '.' &&
                 (i + 1 == line.size() || !name_start(line[i + 1]))) {
        is_float = true;  // `1.` is a float too
        ++i;
      }
      if (i < line.size() && (line[i] == 'e' || line[i] == 'E')) {
        size_t e = i + 1;
        if (e < line.size() && (line[e] == '+' || line[e] == '-')) ++e;
        if (e < line.size() && digit(line[e])) {
          is_float = true;
          i = e;
          while (i < line.size() && digit(line[i])) ++i;
        }
      }
      TokenKind kind = is_float ? TokenKind::Float : TokenKind::Int;
      if (i < line.size() && (line[i] == 'j' || line[i] == 'J')) {
        kind = TokenKind::Imaginary;
        ++i;
      }
      if (i < line.size() && name_char(line[i])) return fail(i, "invalid number");
      out.push_back({kind, line.substr(start, i - start), start, {}});
      continue;
    }
    if (c == '\'' || c == '"') {
      char quote = c;
      std::string value;
      ++i;
      bool closed = false;
      while (i < line.size()) {
        char d = line[i];
        if (d == quote) {
          closed = true;
          ++i;
          break;
        }
        if (d != '\\' && static_cast<unsigned char>(d) < 0x80) {
          // A run of plain ASCII at once (annotations and targets are long strings).
          size_t end = i + 1;
          while (end < line.size() && line[end] != quote && line[end] != '\\' &&
                 static_cast<unsigned char>(line[end]) < 0x80)
            ++end;
          value.append(line.substr(i, end - i));
          i = end;
          continue;
        }
        if (d != '\\') {
          size_t len = utf8_sequence_length(line, i);
          if (len == 0) return fail(i, "invalid UTF-8 in string");
          value.append(line.substr(i, len));
          i += len;
          continue;
        }
        if (i + 1 >= line.size()) break;
        char e = line[i + 1];
        i += 2;
        switch (e) {
          case '\\':
            value += '\\';
            break;
          case '\'':
            value += '\'';
            break;
          case '"':
            value += '"';
            break;
          case 'n':
            value += '\n';
            break;
          case 'r':
            value += '\r';
            break;
          case 't':
            value += '\t';
            break;
          case '0':
            value += '\0';
            break;
          case 'a':
            value += '\a';
            break;
          case 'b':
            value += '\b';
            break;
          case 'f':
            value += '\f';
            break;
          case 'v':
            value += '\v';
            break;
          case 'x':
          case 'u':
          case 'U': {
            size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            if (i + n > line.size())
              return fail(i - 2, "truncated \\" + std::string(1, e) + " escape");
            uint32_t cp = 0;
            for (size_t k = 0; k < n; ++k) {
              char h = line[i + k];
              if (!std::isxdigit(static_cast<unsigned char>(h)))
                return fail(i + k, "bad hex digit in \\" + std::string(1, e) + " escape");
              cp = cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h))
                                                       ? h - '0'
                                                       : std::tolower(h) - 'a' + 10);
            }
            if (cp > 0x10FFFF) return fail(i - 2, "escape beyond U+10FFFF");
            append_utf8(value, cp);
            i += n;
            break;
          }
          default:
            return fail(i - 2, std::string("unknown escape \\") + e);
        }
      }
      if (!closed) return fail(start, "unterminated string");
      out.push_back({TokenKind::String, line.substr(start, i - start), start, std::move(value)});
      continue;
    }
    if (size_t len = operator_length(line, i)) {
      out.push_back({TokenKind::Op, line.substr(i, len), i, {}});
      i += len;
      continue;
    }
    return fail(i, std::string("unexpected character '") + c + "'");
  }
  out.push_back({TokenKind::End, {}, line.size(), {}});
  return true;
}

bool is_python_keyword(std::string_view w) {
  static constexpr std::array<std::string_view, 35> kKeywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  if (w.size() < 2 || w.size() > 8) return false;  // every keyword is 2 to 8 letters
  return std::find(kKeywords.begin(), kKeywords.end(), w) != kKeywords.end();
}

}  // namespace remat::fxtext
