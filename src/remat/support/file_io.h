// Whole-file reading and all-or-nothing writing; "-" means stdin/stdout.
#pragma once

#include <string>
#include <string_view>

#include "remat/support/expected.h"

namespace remat {

/// Reads a whole file, or all of stdin when `path` is "-".
Expected<std::string> read_file(const std::string& path);

/// Writes `contents` to `path` atomically (a temporary file in the same folder, then rename), so
/// a failure never leaves a partial file; "-" writes to stdout.
Status write_file_atomic(const std::string& path, std::string_view contents);

/// Writes `contents` to `path` in place, with plain system calls: for the many files of a folder
/// that is itself made whole or not at all (the report), where a temporary file per file costs.
Status write_whole_file(const std::string& path, std::string_view contents);

/// Creates folder `dir` and its parents if missing; the error names the folder and the reason
/// (`permission denied`), not the first file that could then not be written.
Status make_folder(const std::string& dir);

/// The name used for `path` in messages: "<stdin>"/"<stdout>" for "-".
std::string display_name(const std::string& path, bool output = false);

}  // namespace remat
