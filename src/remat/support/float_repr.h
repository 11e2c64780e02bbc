// Python's repr() of a float: shortest round-trip digits, laid out as CPython does.
#pragma once

#include <string>

namespace remat {

/// `repr(x)` as CPython prints it: `1.0`, `0.1`, `1e-05`, `1e+16`, `inf`, `-inf`, `nan`.
std::string python_float_repr(double x);

}  // namespace remat
