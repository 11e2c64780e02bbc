// remat report LOG|DIR|GRAPH: a TORCH_TRACE log (remat's or PyTorch's) as a static HTML site; or
// a graph file (a joint graph, with its forward and backward if PyTorch partitioned it) as the
// report of one compile.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/cli/report_options.h"
#include "remat/driver/aot_records.h"
#include "remat/driver/what_if.h"
#include "remat/partition/partition_charts.h"
#include "remat/partition/partition_joint.h"
#include "remat/print/printer.h"
#include "remat/report/multi_rank.h"
#include "remat/report/report_builder.h"
#include "remat/support/file_io.h"
#include "remat/tracelog/glog_header.h"

namespace remat::cli {
namespace {

namespace fs = std::filesystem;

// fxgraph-json or readable text rather than a log: a log's lines start with a glog header
// (`V1206 15:18:20...`), a graph file with `{`, `class ` or `def `.
// The first `bytes` of a file (fewer when it is shorter; none when it cannot be read).
std::string file_head(const std::string& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string head(bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

bool is_graph_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::string head = file_head(path, 4096);
  size_t at = head.find_first_not_of(" \t\r\n");
  if (at == std::string::npos) return false;
  std::string_view start = std::string_view(head).substr(at);
  return start.starts_with("{") || start.starts_with("class ") || start.starts_with("def ");
}

// Not a TORCH_TRACE log, though not empty: nothing in its first 64 KB has a glog header (a
// binary file, a text of another kind). An empty log is a log with nothing in it, as tlparse
// reads it.
bool is_other_file(const std::string& path) {
  std::string head = file_head(path, size_t{64} << 10);
  if (head.find_first_not_of(" \t\r\n") == std::string::npos) return false;
  return !tracelog::has_glog_line(head);
}

struct GraphReportArgs {
  std::string joint, fw, bw, strategy = "min-cut";
};

// Writes the compile's records into a log in a fresh temporary folder; returns the log's path.
Expected<std::string> log_of_graphs(const GraphReportArgs& a, const fs::path& folder) {
  auto joint = load_graph(a.joint);
  REMAT_TRY(joint);
  auto writer = tracelog::TraceWriter::create(folder.string());
  REMAT_TRY(writer);
  tracelog::TraceWriter& w = **writer;
  w.set_source("remat/cli/command_report.cpp", __LINE__);
  tracelog::CompileId id{std::nullopt, 0, 0, 0};
  if (!a.fw.empty()) {
    // PyTorch's own partition: the report reads what it saved off the two graphs.
    auto fw = load_graph(a.fw);
    REMAT_TRY(fw);
    auto bw = load_graph(a.bw);
    REMAT_TRY(bw);
    driver::write_aot_records(w, id, *joint, *fw, *bw, nullptr);
  } else if (check_joint_shape(*joint)) {
    partition::Strategy strategy = *partition::parse_strategy(a.strategy);
    auto p = partition::partition_joint(*joint, strategy);
    if (!p) {
      Diagnostics errors = p.errors();
      for (Diagnostic& d : errors) d.file = display_name(a.joint);
      return errors;
    }
    // The report's pictures; a joint that partitions once partitions for them too.
    if (auto charts = partition::chart_partition(*joint, *p, strategy, {}))
      p->report.charts = std::move(*charts);
    driver::write_aot_records(w, id, *joint, p->graphs.forward, p->graphs.backward, &p->report);
  } else {
    // Not a joint graph: its page alone.
    w.write("dynamo_output_graph", "{}", id, print_readable(*joint, PrintOptions::tlparse()).text);
  }
  return w.close();
}

struct ReportArgs {
  std::string path, out = "tl_out";
  bool latest = false, overwrite = false, strict = false, no_browser = false, all_ranks = false;
  double what_if_seconds = 2;  // per optimum; 0: no "what if" tables
  report::ReportOptions flags;
  GraphReportArgs graph;
  const CLI::Option* fw_flag = nullptr;
  const CLI::Option* strategy_flag = nullptr;
};

Expected<int> run_report(const ReportArgs& a) {
  if (a.all_ranks) {
    report::ReportOptions options = report_options_for(a.path, app_command_line());
    options.plain_text = a.flags.plain_text;
    options.export_mode = a.flags.export_mode;
    options.inductor_provenance = a.flags.inductor_provenance;
    auto result = report::write_multi_rank_report(a.path, a.out, options, a.overwrite, a.strict);
    REMAT_TRY(result);
    for (const auto& [rank, r] : result->ranks)
      print_report_summary(r, a.path + " rank " + std::to_string(rank),
                           a.out + "/rank_" + std::to_string(rank), a.flags.verbose);
    fmt::print(
        "report: {}/index.html ({} ranks{})\n", a.out, result->ranks.size(),
        result->diverged() ? ", the ranks diverged: see the landing page" : ", no divergence");
    return kExitOk;
  }
  std::string log_path;
  fs::path temp;
  if (is_graph_file(a.path)) {
    GraphReportArgs graph = a.graph;
    graph.joint = a.path;
    // A fresh private folder (mkdtemp), not a predictable name another user could plant first.
    std::string pattern = (fs::temp_directory_path() / "remat-report-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      return error_message("report: cannot create a temporary folder: " +
                           std::string(std::strerror(errno)));
    temp = pattern;
    auto log = log_of_graphs(graph, temp);
    if (!log) {
      std::error_code ec;
      fs::remove_all(temp, ec);
      return log.errors();
    }
    log_path = *log;
  } else {
    if (a.fw_flag->count() > 0 || a.strategy_flag->count() > 0) {
      return file_error(a.path,
                        "--fw, --bw and --strategy apply to a graph file, and this is a log");
    }
    auto log = report::resolve_log(a.path, a.latest);
    REMAT_TRY(log);
    if (is_other_file(*log)) {
      return file_error(display_name(*log),
                        "not a TORCH_TRACE log: no line has a glog header "
                        "(`V1206 15:18:20.254000 1234 path.py:56] {...}`), and it is not "
                        "a graph file (fxgraph-json or readable text) either");
    }
    log_path = *log;
  }
  report::ReportOptions options = report_options_for(log_path, app_command_line());
  options.plain_text = a.flags.plain_text;
  options.strict_compile_id = a.flags.strict_compile_id;
  options.verbose = a.flags.verbose;
  options.export_mode = a.flags.export_mode;
  options.inductor_provenance = a.flags.inductor_provenance;
  if (a.what_if_seconds > 0 && temp.empty()) {
    options.what_if = [seconds = a.what_if_seconds](const report::WhatIfRequest& r) {
      return driver::what_if(r, seconds);
    };
  }
  auto result = report::write_report_folder(log_path, a.out, options, a.overwrite, a.strict);
  std::error_code ec;
  if (!temp.empty()) fs::remove_all(temp, ec);
  REMAT_TRY(result);
  print_report_summary(*result, temp.empty() ? log_path : a.path, a.out, options.verbose);
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "report",
      "Turn a TORCH_TRACE log - remat's (remat compile) or PyTorch's own - into a static site in "
      "tlparse's layout: index.html, compile_directory.json, raw.jsonl, per-compile-id artifacts. "
      "Graph pages color checkpoint regions and mark each joint-graph node saved, recomputed, "
      "forward "
      "only or backward only, with the partitioner's reasons when remat partitioned it. Bad lines "
      "are "
      "counted; --strict fails on them. Given a graph file instead (fxgraph-json or readable "
      "text), "
      "reports that one compile: a joint graph is partitioned (--strategy), or shown with the "
      "partition PyTorch made (--fw, --bw).");
  auto a = std::make_shared<ReportArgs>();
  cmd->add_option("log", a->path, "a log file, the folder TORCH_TRACE pointed at, or a graph file")
      ->required();
  cmd->add_option("-o,--output", a->out, "output folder (default tl_out)");
  cmd->add_flag("--latest", a->latest, "with a folder: report its newest log");
  cmd->add_flag("--overwrite", a->overwrite,
                "replace the output folder, if remat wrote it (it holds .remat-output)");
  cmd->add_flag("--strict", a->strict,
                "exit 2 if any line is bad (glog prefix, JSON, MD5, other rank)");
  cmd->add_flag("--strict-compile-id", a->flags.strict_compile_id,
                "exit 2 if any record was logged outside a compile");
  cmd->add_flag("-p,--plain-text", a->flags.plain_text,
                "Inductor's output code as .txt files instead of highlighted pages");
  cmd->add_flag("-v,--verbose", a->flags.verbose, "print tlparse's Stats line and every bad line");
  cmd->add_flag("-e,--export", a->flags.export_mode,
                "a torch.export log: lead with the guards export evaluated, data-dependent "
                "expressions and fake "
                "kernels, each with its symbolic guard page, and link the exported program");
  cmd->add_flag("-i,--inductor-provenance", a->flags.inductor_provenance,
                "a page per compile with Inductor's node mappings: pre-grad graph, post-grad graph "
                "and generated "
                "code side by side, each line linked to where it came from and what it became");
  cmd->add_flag(
      "--all-ranks-html", a->all_ranks,
      "LOG is the folder of one distributed run's per-rank logs "
      "(dedicated_log_torch_trace_rank_<n>*.log): "
      "a report per rank in rank_<n>/ and a landing page with the divergence between ranks");
  cmd->add_option("--what-if-time", a->what_if_seconds,
                  "seconds each optimum of a partition page's \"what if\" table may take "
                  "(PyTorch's knapsack and remat's optimum at other budgets of the compile's "
                  "logged joint graph; default 2; 0: no such tables)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag(
      "--no-browser", a->no_browser,
      "accepted for tlparse's users: remat report never opens a browser (open OUT/index.html)");
  auto* fw =
      cmd->add_option("--fw", a->graph.fw,
                      "with a joint graph file: the forward graph PyTorch partitioned it into");
  auto* bw =
      cmd->add_option("--bw", a->graph.bw,
                      "with a joint graph file: the backward graph PyTorch partitioned it into");
  fw->needs(bw);
  bw->needs(fw);
  auto* strategy = cmd->add_option("--strategy", a->graph.strategy,
                                   "with a joint graph file: min-cut (default) or default")
                       ->check(CLI::IsMember({"min-cut", "default"}));
  strategy->excludes(fw);
  a->fw_flag = fw;
  a->strategy_flag = strategy;
  run_verb(*cmd, a, exit_code, &run_report);
}

}  // namespace remat::cli
