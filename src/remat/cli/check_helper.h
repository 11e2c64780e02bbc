// Finding and running remat-check, the executable beside `remat` that links libtorch.
#pragma once

#include <optional>
#include <string>

namespace remat::cli {

/// `remat-check` in the folder of the running executable, if it is there.
std::optional<std::string> check_helper_path();

/// Replaces this process with `remat-check` and the same arguments; returns only on failure
/// (with the exit code to use, after printing why).
int exec_check_helper(int argc, char** argv);

}  // namespace remat::cli
