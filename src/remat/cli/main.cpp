// remat: the command-line entry point; argument parsing and wiring only.
#include <string_view>

#include "remat/cli/check_helper.h"
#include "remat/cli/commands.h"
#include "remat/cli/report_options.h"

int main(int argc, char** argv) {
#ifdef REMAT_WITH_TORCH
  if (argc >= 2 && std::string_view(argv[1]) == "check")
    return remat::cli::exec_check_helper(argc, argv);
#endif
  CLI::App app{
      "remat: FX graphs and activation checkpointing - see what is saved and what is "
      "recomputed, change it, and check the result.",
      "remat"};
  app.set_version_flag("--version", std::string("remat ") + REMAT_VERSION);
  remat::cli::set_command_line(argc, argv);
  app.require_subcommand(1);
  app.fallthrough(false);
  int exit_code = remat::cli::kExitOk;
  remat::cli::add_info_command(app, exit_code);
  remat::cli::add_convert_command(app, exit_code);
  remat::cli::add_print_command(app, exit_code);
  remat::cli::add_trace_command(app, exit_code);
  remat::cli::add_flow_command(app, exit_code);
  remat::cli::add_partition_command(app, exit_code);
  remat::cli::add_opt_command(app, exit_code);
  remat::cli::add_diff_command(app, exit_code);
  remat::cli::add_policy_command(app, exit_code);
  remat::cli::add_report_command(app, exit_code);
  remat::cli::add_compile_command(app, exit_code);
#ifdef REMAT_WITH_TORCH
  // Listed here for --help; `remat check ...` itself runs remat-check (see above).
  app.add_subcommand(
      "check",
      "Run a joint graph through libtorch's ATen and compare it with libtorch's autograd; with "
      "--fw F "
      "--bw B, compare a partition with its joint graph (remat check --help for the options).");
#endif
  return remat::cli::run_app(app, argc, argv, exit_code);
}
