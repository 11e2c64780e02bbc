// Python-traceback text for C++ call sites, so printed graphs point at the user's C++ lines.
#pragma once

#include <source_location>
#include <string>
#include <string_view>

namespace remat {

/// `gn` from GCC's `remat::Tensor gn(remat::Tensor, remat::Tensor)`; `<lambda>` for lambdas
/// (as Python names them).
std::string short_function_name(std::string_view pretty_function);

/// One traceback frame: `  File "path", line N, in fn\n    code\n`. The code line is read from
/// the source file (cached); `<source not available>` when the file cannot be read.
std::string traceback_frame(const std::source_location& loc);

}  // namespace remat
