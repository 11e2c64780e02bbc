#include "remat/support/float_repr.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace remat {

std::string python_float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";

  // Shortest round-trip digits in scientific form, e.g. "1.2345e-05", "-5e+00".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  size_t e_pos = sci.find('e');
  std::string mantissa = sci.substr(0, e_pos);
  int exponent = std::atoi(sci.c_str() + e_pos + 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;

  // CPython's float_repr_style 'r': fixed notation when -4 <= exponent < 16.
  if (exponent >= -4 && exponent < 16) {
    std::string out;
    if (exponent < 0) {
      out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else {
      size_t int_len = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_len) {
        out = digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out = digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    }
    return sign + out;
  }
  std::string out = digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  out += 'e';
  out += exponent < 0 ? '-' : '+';
  int abs_exp = std::abs(exponent);
  if (abs_exp < 10) out += '0';
  out += std::to_string(abs_exp);
  return sign + out;
}

}  // namespace remat
