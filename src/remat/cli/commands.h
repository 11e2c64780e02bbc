// The remat verbs. Each adds a CLI11 subcommand whose callback is `Expected<int> run_VERB(const
// VERBArgs&)` (run_verb): an exit code, or errors that exit_code_of reports.
#pragma once

#include <CLI/CLI.hpp>

#include <initializer_list>
#include <memory>
#include <string_view>

#include "remat/support/expected.h"

namespace remat::cli {

/// Exit codes: 0 success, 1 internal failure, 2 bad input or usage (file:line:col printed).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;
/// `remat check`: the numbers differ beyond tolerance; `remat partition --verify`: a violation.
inline constexpr int kExitCheckFailed = 1;

/// A verb's result: its exit code, or its errors, printed to stderr (exit kExitBadInput). Every
/// verb's errors are reported here and nowhere else.
int exit_code_of(const Expected<int>& result);

/// Makes `run(*args)` the callback of `cmd`: the one place a verb's errors are reported.
template <typename Args>
void run_verb(CLI::App& cmd, std::shared_ptr<Args> args, int& exit_code,
              Expected<int> (*run)(const Args&)) {
  cmd.callback([args, &exit_code, run] { exit_code = exit_code_of(run(*args)); });
}
/// With `--strategy default`, the min-cut's options (`--budget`, `--pareto`, ...) would be
/// ignored: an error naming the first of `options` that was given, if any.
Status refuse_min_cut_options(std::string_view strategy,
                              std::initializer_list<const CLI::Option*> options);
/// The same for options that apply to `applies_to` alone, given with `strategy`.
Status refuse_options(std::string_view strategy, std::initializer_list<const CLI::Option*> options,
                      std::string_view applies_to);

/// Parses the arguments (running the chosen verb's callback, which sets `exit_code`); --help and
/// --version exit 0, usage errors 2.
int run_app(CLI::App& app, int argc, char** argv, const int& exit_code);

void add_info_command(CLI::App& app, int& exit_code);
void add_convert_command(CLI::App& app, int& exit_code);
void add_print_command(CLI::App& app, int& exit_code);
void add_trace_command(CLI::App& app, int& exit_code);
void add_flow_command(CLI::App& app, int& exit_code);
void add_partition_command(CLI::App& app, int& exit_code);
void add_opt_command(CLI::App& app, int& exit_code);
void add_diff_command(CLI::App& app, int& exit_code);
void add_policy_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_compile_command(CLI::App& app, int& exit_code);
/// remat-check's one verb (the executable that links libtorch).
void add_check_command(CLI::App& app, int& exit_code);

}  // namespace remat::cli
