// Finding and running remat-check, the executable beside `remat` that links libtorch.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace remat::cli {

/// `remat-check` in the folder of the running executable, if it is there.
std::optional<std::string> check_helper_path();

/// Replaces this process with `remat-check` and the same arguments; returns only on failure
/// (with the exit code to use, after printing why).
int exec_check_helper(int argc, char** argv);

/// Runs `remat-check check ARGS...`; its stdout, and its exit code.
struct HelperRun {
  int exit_code = -1;
  std::string out;
};
HelperRun run_check_helper(const std::vector<std::string>& args);

}  // namespace remat::cli
