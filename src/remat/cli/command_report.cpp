// remat report LOG|DIR: a TORCH_TRACE log (remat's or PyTorch's) as a static HTML site.
#include <fmt/format.h>

#include "remat/cli/commands.h"
#include "remat/cli/report_options.h"
#include "remat/report/report_builder.h"

namespace remat::cli {

void add_report_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "report",
      "Turn a TORCH_TRACE log - remat's (remat compile) or PyTorch's own - into a static site in "
      "tlparse's layout: index.html, compile_directory.json, raw.jsonl, per-compile-id artifacts. "
      "Graph pages color checkpoint regions and mark each joint-graph node saved, recomputed, forward "
      "only or backward only when the log has a partition. Bad lines are counted; --strict fails on them.");
  struct Args {
    std::string path, out = "tl_out";
    bool latest = false, overwrite = false, strict = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("log", a->path, "a log file, or the folder TORCH_TRACE pointed at")->required();
  cmd->add_option("-o,--output", a->out, "output folder (default tl_out)");
  cmd->add_flag("--latest", a->latest, "with a folder: report its newest log");
  cmd->add_flag("--overwrite", a->overwrite, "replace the output folder if it exists");
  cmd->add_flag("--strict", a->strict, "exit 2 if any line is bad (glog prefix, JSON, MD5, other rank)");
  cmd->callback([a, &exit_code] {
    auto log = report::resolve_log(a->path, a->latest);
    if (!log) {
      exit_code = report(log.errors());
      return;
    }
    report::ReportOptions options = report_options_for(*log, app_command_line());
    auto result = report::write_report_folder(*log, a->out, options, a->overwrite, a->strict);
    if (!result) {
      exit_code = report(result.errors());
      return;
    }
    print_report_summary(*result, *log, a->out);
    exit_code = kExitOk;
  });
}

}  // namespace remat::cli
