#include "remat/cli/check_helper.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "remat/cli/commands.h"

namespace remat::cli {

std::optional<std::string> check_helper_path() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  std::filesystem::path helper = self.parent_path() / "remat-check";
  if (!std::filesystem::exists(helper, ec)) return std::nullopt;
  return helper.string();
}

int exec_check_helper(int argc, char** argv) {
  auto helper = check_helper_path();
  if (!helper) {
    std::fputs(
        "remat: error: remat check runs remat-check, which is not beside this remat (it is built "
        "with libtorch)\n",
        stderr);
    return kExitBadInput;
  }
  std::vector<char*> args(argv, argv + argc);
  args[0] = const_cast<char*>("remat-check");
  args.push_back(nullptr);
  ::execv(helper->c_str(), args.data());
  std::fprintf(stderr, "remat: error: cannot run %s: %s\n", helper->c_str(), std::strerror(errno));
  return kExitBadInput;
}

}  // namespace remat::cli
