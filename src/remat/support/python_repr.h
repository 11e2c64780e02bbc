// Python's repr() of the scalar values FX prints: strings, complex numbers, devices.
#pragma once

#include <string>
#include <string_view>

namespace remat {

/// `repr(s)` for a UTF-8 string as CPython writes it: single quotes unless the text holds a
/// single quote and no double quote; `\\`, the quote, `\n`, `\r`, `\t` escaped; other
/// non-printable characters as `\xNN`, `\uNNNN` or `\UNNNNNNNN`; printable non-ASCII kept.
/// (Printability of non-ASCII follows CPython for controls, separators, format characters,
/// surrogates, private use and non-characters; other code points count as printable.)
std::string python_str_repr(std::string_view utf8);

/// `repr(complex(re, im))`: `1j`, `(1+2j)`, `(1.5-2j)`, `(nan+infj)`.
std::string python_complex_repr(double re, double im);

/// `repr(torch.device(...))` for a device string: `cpu` -> `device(type='cpu')`,
/// `cuda:0` -> `device(type='cuda', index=0)`.
std::string python_device_repr(std::string_view device);

/// True when `s` is a Python identifier (ASCII subset: [A-Za-z_][A-Za-z0-9_]*).
bool is_python_identifier(std::string_view s);

}  // namespace remat
