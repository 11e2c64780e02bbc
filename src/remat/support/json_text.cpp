#include "remat/support/json_text.h"

#include <charconv>

#include "remat/support/assert.h"
#include "remat/support/float_repr.h"
#include "remat/support/utf8.h"

namespace remat::json {

void append_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out += kHex[(c >> 4) & 0xF];
          out += kHex[c & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

namespace {

std::optional<uint32_t> hex4(std::string_view s, size_t at) {
  if (at + 4 > s.size()) return std::nullopt;
  uint32_t v = 0;
  for (size_t i = at; i < at + 4; ++i) {
    char c = s[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= static_cast<uint32_t>(c - 'A' + 10);
    else
      return std::nullopt;
  }
  return v;
}

}  // namespace

std::optional<std::string> unquote(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return std::nullopt;
  std::string out;
  out.reserve(s.size() - 2);
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == '"' || static_cast<unsigned char>(c) < 0x20) return std::nullopt;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= s.size() - 1) return std::nullopt;  // the backslash escapes the closing quote
    switch (s[i]) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        std::optional<uint32_t> cp = hex4(s.substr(0, s.size() - 1), i + 1);
        if (!cp) return std::nullopt;
        i += 4;
        if (*cp >= 0xD800 && *cp < 0xDC00) {  // a high surrogate: its low half must follow
          std::optional<uint32_t> low;
          if (i + 2 < s.size() - 1 && s[i + 1] == '\\' && s[i + 2] == 'u')
            low = hex4(s.substr(0, s.size() - 1), i + 3);
          if (!low || *low < 0xDC00 || *low >= 0xE000) return std::nullopt;
          cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
          i += 6;
        } else if (*cp >= 0xDC00 && *cp < 0xE000) {
          return std::nullopt;
        }
        append_utf8(out, *cp);
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

void append_double(std::string& out, double v) {
  std::string text = python_float_repr(v);
  REMAT_ASSERT(text != "nan" && text != "inf" && text != "-inf") << "non-finite JSON number";
  out += text;
}

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

std::string quoted(std::string_view s) {
  std::string out;
  append_string(out, s);
  return out;
}

}  // namespace remat::json
