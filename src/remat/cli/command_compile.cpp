// remat compile --model NAME ... -o OUT: the main job (driver::compile). Trace, joint graph,
// partition, numeric check, then the TORCH_TRACE log PyTorch would write for that compile
// (OUT/trace/) and its report (OUT/report/).
#include <fmt/format.h>

#include "remat/cli/check_helper.h"
#include "remat/cli/commands.h"
#include "remat/cli/model_flags.h"
#include "remat/cli/report_options.h"
#include "remat/driver/compile.h"
#include "remat/driver/what_if.h"
#include "remat/report/html.h"
#include "remat/support/file_io.h"
#include "remat/support/output_folder.h"

namespace remat::cli {

namespace {

struct CompileArgs {
  ModelFlags model;
  std::string out, strategy = "min-cut";
  double budget = 1.0;
  bool no_check = false, graphs = false, log_passes = false, no_charts = false, overwrite = false;
  const CLI::Option* budget_flag = nullptr;
  const CLI::Option* log_passes_flag = nullptr;
};

Expected<int> run_compile(const CompileArgs& a) {
  REMAT_TRY(refuse_min_cut_options(a.strategy, {a.budget_flag, a.log_passes_flag}));
  auto model = a.model.resolve("compile");
  REMAT_TRY(model);
  // Written into a staging folder that replaces OUT once the compile is done.
  Expected<OutputFolder> out = OutputFolder::start(a.out, a.overwrite);
  REMAT_TRY(out);
  std::fprintf(stderr, "remat compile: %s, %s\n", a.model.describe(*model->info).c_str(),
               a.strategy.c_str());
  driver::CompileOptions o;
  o.model = a.model.model;
  o.model_options = model->options;
  o.strategy = *partition::parse_strategy(a.strategy);
  o.config.memory_budget = a.budget;
  o.out_dir = out->staging();
  o.graph_files = a.graphs;
  o.log_passes = a.log_passes;
  o.charts = !a.no_charts;
#ifdef REMAT_WITH_TORCH
  if (!a.no_check) {
    std::optional<std::string> helper = check_helper_path();
    if (!helper)
      return error_message(
          "compile: the numeric check (remat-check) did not run: remat-check is not beside "
          "remat");
    o.check_executable = *helper;
  }
#else
  o.check_skipped = "skipped (built without libtorch)";
#endif
  o.report_options = [](const std::string& log) {
    report::ReportOptions options = report_options_for(log, app_command_line());
    // The partition page's "what if" table, as `remat report` makes it (2 s per optimum).
    options.what_if = [](const report::WhatIfRequest& r) { return driver::what_if(r, 2); };
    return options;
  };
  o.progress = [](std::string_view stage, std::string_view detail, double ms) {
    std::fprintf(stderr, "  %-13s %-64s %9.1f ms\n", std::string(stage).c_str(),
                 std::string(detail).c_str(), ms);
  };
  Expected<driver::CompileResult> r = driver::compile(o);
  if (!r) return out->rename_in(r.errors());
  REMAT_TRY(out->commit());
  if (!r->check.ok) std::fputs(r->check.details.c_str(), stderr);
  const partition::PartitionReport& preport = r->partition.report;
  fmt::print("{}: forward graph {}; joint graph {}\n", a.model.model,
             driver::node_counts(r->forward), driver::node_counts(r->joint));
  fmt::print("saved: {} values, {} ({} activation memory beyond the inputs)\n",
             preport.saved_values.size(),
             report::human_bytes(static_cast<uint64_t>(preport.saved_bytes_total)),
             report::human_bytes(static_cast<uint64_t>(preport.activation_bytes.value_or(0))));
  fmt::print("recomputed in the backward: {} ops, {}\n", preport.recomputed.size(),
             report::human_flops(static_cast<uint64_t>(preport.recompute_flops.value_or(0))));
  fmt::print("peak memory estimate (forward, then backward): {}\n",
             report::human_bytes(static_cast<uint64_t>(preport.peak_memory_bytes)));
  fmt::print("numeric check: {}\n", r->check.summary);
  if (!r->graphs_dir.empty()) fmt::print("graphs: {}\n", out->final_path(r->graphs_dir));
  fmt::print("log: {}\nreport: {}/index.html\n", out->final_path(r->log_path),
             out->final_path(r->report_dir));
  return r->check.ok ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_compile_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "compile",
      "The main job: trace a zoo model, build its joint graph, partition it, check the partition's "
      "numbers through libtorch, then write the TORCH_TRACE log PyTorch would write for that "
      "compile (OUT/trace/) and its HTML report (OUT/report/index.html). Exit 1 if the check "
      "fails.");
  auto a = std::make_shared<CompileArgs>();
  a->model.add_to(*cmd);
  cmd->add_option("--strategy", a->strategy, "min-cut (default) or default")
      ->check(CLI::IsMember({"min-cut", "default"}));
  a->budget_flag =
      cmd->add_option("--budget", a->budget, "activation memory budget in [0, 1] (min-cut)")
          ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--no-check", a->no_check, "skip the numeric check through libtorch");
  cmd->add_flag("--graphs", a->graphs,
                "write OUT/graphs/ (the joint, forward and backward as fxgraph-json) even with "
                "--no-check; the check always writes them, for remat-check to read");
  cmd->add_flag("--no-charts", a->no_charts,
                "skip the report's pictures (their two extra partitions and the budget sweep)");
  a->log_passes_flag = cmd->add_flag("--log-passes", a->log_passes,
                                     "log the joint graph after each partitioner pass that "
                                     "changed it (artifacts remat_pass_NAME)");
  cmd->add_option("-o,--output", a->out, "output folder: trace/ and report/ go in it")->required();
  cmd->add_flag("--overwrite", a->overwrite,
                "replace the output folder, if remat wrote it (it holds .remat-output)");
  run_verb(*cmd, a, exit_code, &run_compile);
}

}  // namespace remat::cli
