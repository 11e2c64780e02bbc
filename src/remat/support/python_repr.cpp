#include "remat/support/python_repr.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "remat/support/float_repr.h"

namespace remat {
namespace {

/// Decodes one UTF-8 sequence at `s[i]`; returns the code point (or the byte for invalid
/// input) and advances `i`.
uint32_t next_code_point(std::string_view s, size_t& i, bool& valid) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  uint32_t c = byte(i);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  valid = len != 0 && i + len <= s.size();
  for (size_t k = 1; valid && k < len; ++k) valid = (byte(i + k) & 0xC0) == 0x80;
  if (!valid) {
    ++i;
    return c;
  }
  if (len == 1) {
    ++i;
    return c;
  }
  uint32_t cp = c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  i += len;
  return cp;
}

/// Python's str.isprintable() for non-ASCII code points (see the header's note).
bool printable(uint32_t cp) {
  if (cp < 0x20 || cp == 0x7F) return false;
  if (cp < 0x7F) return true;
  if (cp <= 0xA0) return false;  // C1 controls and NO-BREAK SPACE (Zs)
  if (cp == 0xAD) return false;  // SOFT HYPHEN (Cf)
  if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
      (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF)
    return false;                                  // spaces, separators and format characters
  if (cp >= 0xD800 && cp <= 0xDFFF) return false;  // surrogates
  if ((cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000) return false;            // private use
  if ((cp & 0xFFFE) == 0xFFFE || (cp >= 0xFDD0 && cp <= 0xFDEF)) return false;  // non-characters
  if (cp == 0x180E || (cp >= 0xFFF9 && cp <= 0xFFFB) || cp == 0x110BD || cp == 0xE0001 ||
      (cp >= 0xE0020 && cp <= 0xE007F))
    return false;
  return cp <= 0x10FFFF;
}

std::string hex_escape(uint32_t cp) {
  char buf[16];
  if (cp < 0x100)
    std::snprintf(buf, sizeof buf, "\\x%02x", cp);
  else if (cp < 0x10000)
    std::snprintf(buf, sizeof buf, "\\u%04x", cp);
  else
    std::snprintf(buf, sizeof buf, "\\U%08x", cp);
  return buf;
}

/// A complex part: float repr without the trailing `.0` of integral values.
std::string complex_part(double x) {
  std::string s = python_float_repr(x);
  if (s.size() > 2 && s.ends_with(".0")) s.resize(s.size() - 2);
  return s;
}

}  // namespace

std::string python_str_repr(std::string_view utf8) {
  bool has_single = utf8.find('\'') != std::string_view::npos;
  bool has_double = utf8.find('"') != std::string_view::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  size_t i = 0;
  while (i < utf8.size()) {
    size_t start = i;
    bool valid = true;
    uint32_t cp = next_code_point(utf8, i, valid);
    if (!valid) {
      out += hex_escape(cp);
      continue;
    }
    if (cp == static_cast<uint32_t>(quote) || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (printable(cp)) {
      out.append(utf8.substr(start, i - start));
    } else {
      out += hex_escape(cp);
    }
  }
  out += quote;
  return out;
}

std::string python_complex_repr(double re, double im) {
  std::string imag = complex_part(im) + "j";
  if (re == 0 && !std::signbit(re)) return imag;
  bool negative = !std::isnan(im) && std::signbit(im);  // its repr carries the '-'
  return "(" + complex_part(re) + (negative ? "" : "+") + imag + ")";
}

std::string python_device_repr(std::string_view device) {
  size_t colon = device.find(':');
  if (colon == std::string_view::npos) return "device(type='" + std::string(device) + "')";
  return "device(type='" + std::string(device.substr(0, colon)) +
         "', index=" + std::string(device.substr(colon + 1)) + ")";
}

bool is_python_identifier(std::string_view s) {
  if (s.empty()) return false;
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!start(s[0])) return false;
  for (char c : s)
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

}  // namespace remat
