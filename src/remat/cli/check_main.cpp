// remat-check: `remat check` in its own executable, the only one that links libtorch, so that
// every other verb starts without loading it (libtorch's static initialisation costs ~0.6 s and
// ~150 MB on every start). `remat check ...` and `remat compile` run it.
#include "remat/cli/commands.h"

int main(int argc, char** argv) {
  // Named `remat`: users reach it as `remat check`, and its help and usage lines say so.
  CLI::App app{
      "remat-check: run graphs through libtorch's ATen and compare the numbers (used by remat "
      "check)",
      "remat"};
  app.set_version_flag("--version", std::string("remat ") + REMAT_VERSION);
  app.require_subcommand(1);
  int exit_code = remat::cli::kExitOk;
  remat::cli::add_check_command(app, exit_code);
  return remat::cli::run_app(app, argc, argv, exit_code);
}
