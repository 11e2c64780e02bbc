// File names made of someone else's text (a log's artifact names, event names, file names), so
// that what remat writes stays inside its output folder (docs/security.md).
#pragma once

#include <string>
#include <string_view>

namespace remat {

/// `name` as one file-name component: letters, digits, `.`, `_` and `-` kept, every other byte
/// `_`, at most 80 bytes, never empty and never starting with `.`. A name that had to change gets
/// `-` and 8 hex digits of a hash of the original, so two different names never meet; a name that
/// is already safe (tlparse's `inductor_output_code_abc`) is kept as it is.
std::string safe_file_stem(std::string_view name);

/// Whether `rel` is a relative path remat may write under its output folder: components of
/// [A-Za-z0-9._-] only, none empty, `.` or `..`; no leading `/`, no `\`, no NUL.
bool is_safe_relative_path(std::string_view rel);

}  // namespace remat
