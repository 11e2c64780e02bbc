#include "remat/cli/check_helper.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "remat/cli/commands.h"

extern char** environ;

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

HelperRun run_check_helper(const std::vector<std::string>& args) {
  HelperRun run;
  auto helper = check_helper_path();
  if (!helper) return run;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return run;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<std::string> storage = {"remat-check", "check"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, helper->c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned == 0) {
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0)
      run.out.append(buffer, static_cast<size_t>(n));
  }
  ::close(pipe_fds[0]);
  if (spawned != 0) return run;
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace remat::cli
