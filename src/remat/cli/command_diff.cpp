// remat diff A B: two partitions of the same joint graph side by side: the totals of each and
// every value whose fate changed between saved and recomputed, with its bytes, FLOPs and reason.
#include <fmt/format.h>

#include <cstdlib>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/cli/logged_compile.h"
#include "remat/cli/report_options.h"
#include "remat/fxtext/graph_statements.h"
#include "remat/partition/memory_budget.h"
#include "remat/partition/partition_joint.h"
#include "remat/records/partition_diff.h"
#include "remat/report/derived_partition.h"
#include "remat/report/diff_page.h"
#include "remat/support/file_io.h"

namespace remat::cli {
namespace {

using records::FateChange;

void print_totals(const records::PartitionDiff& d) {
  fmt::print("{:<20} {:>14} {:>14} {:>15}\n", "", "before", "after", "change");
  for (const records::TotalRow& row : records::total_rows(d)) {
    int64_t change = row.after - row.before;
    fmt::print("{:<20} {:>14} {:>14} {:>15}\n", row.label, report::total_text(row.before, row.unit),
               report::total_text(row.after, row.unit),
               change == 0 ? "0" : (change > 0 ? "+" : "-") + report::total_text(change, row.unit));
  }
}

void print_changes(const std::vector<FateChange>& changes) {
  fmt::print("{} value{} changed fate:\n", changes.size(), changes.size() == 1 ? "" : "s");
  for (const FateChange& c : changes) {
    std::string what = std::string(records::fate_name(c.before)) + " -> " +
                       std::string(records::fate_name(c.after));
    std::string cost = c.flops ? report::total_text(*c.flops, records::TotalRow::Unit::Flops) : "";
    fmt::print("  {:<24} {:<24} {:>10} {:>14}  {}{}\n", c.name, what,
               c.bytes ? report::total_text(c.bytes, records::TotalRow::Unit::Bytes) : "", cost,
               c.input ? "(an input) " : "", c.reason);
  }
}

struct DiffArgs {
  std::string before, after, compile, against = "optimal", budget = "1";
  double time_limit = 60, gap_percent = 0;
  const CLI::Option *against_flag = nullptr, *budget_flag = nullptr, *time_limit_flag = nullptr,
                    *gap_flag = nullptr;
};

void print_diff(const records::PartitionRecord& before, const std::string& before_name,
                const records::PartitionRecord& after, const std::string& after_name) {
  records::PartitionDiff d = records::diff_partitions(before, after);
  fmt::print("before: {} ({}, chosen by {})\n", before_name, before.strategy, before.stage);
  fmt::print("after : {} ({}, chosen by {})\n", after_name, after.strategy, after.stage);
  if (d.shared == 0 && !before.saved_values.empty() && !after.saved_values.empty()) {
    std::fputs(
        "remat diff: warning: the two partitions name no value in common: are they of "
        "the same joint graph?\n",
        stderr);
  }
  print_totals(d);
  print_changes(d.changes);
}

// remat diff LOG --compile 3/0 --against optimal --budget 0.5: what PyTorch saved in that run
// (read off the forward and backward graphs it logged) against remat's choice for the joint
// graph it logged.
Expected<int> diff_logged(const DiffArgs& a) {
  if (!a.after.empty())
    return error_message(
        "remat diff: a TORCH_TRACE log is compared with --against STRATEGY, "
        "not with a second file (" +
        display_name(a.after) + ")");
  Expected<LoggedCompile> c = logged_compile(a.before, a.compile);
  REMAT_TRY(c);
  std::string name = display_name(a.before) + " [" + c->id + "]";
  if (c->forward.empty() || c->backward.empty())
    return file_error(display_name(a.before),
                      "compile " + c->id +
                          " logged no aot_forward_graph and aot_backward_graph: the partition "
                          "PyTorch chose is read off those");
  std::vector<fxtext::GraphLine> fw = fxtext::graph_lines(c->forward),
                                 bw = fxtext::graph_lines(c->backward),
                                 joint_lines = fxtext::graph_lines(c->joint);
  report::PartitionMarks marks = report::marks_read_off_graphs(
      {c->forward, &fw}, {c->backward, &bw}, {c->joint, &joint_lines});
  records::PartitionRecord theirs =
      report::derived_record(marks, {c->forward, &fw}, {c->backward, &bw}, &joint_lines);
  Expected<GraphModule> joint = read_logged_joint(a.before, *c, BadTargets::Refuse);
  REMAT_TRY(joint);
  Expected<partition::MemoryBudget> budget = partition::parse_memory_budget(a.budget);
  REMAT_TRY(budget);
  partition::Strategy strategy = *partition::parse_strategy(a.against);  // CLI11 checked it
  REMAT_TRY(refuse_min_cut_options(a.against, {a.time_limit_flag, a.gap_flag}));
  partition::MinCutConfig config;
  partition::OptimalOptions optimal;
  optimal.time_limit_seconds = a.time_limit;
  optimal.relative_gap = a.gap_percent / 100;
  Expected<partition::Partition> p =
      partition::partition_for_budget(*joint, strategy, config, *budget, optimal);
  if (!p) return in_log(p.errors(), a.before, *c);
  print_diff(theirs, name + ", what PyTorch saved", p->report,
             fmt::format("remat's {} at budget {}", a.against, a.budget));
  return kExitOk;
}

Expected<int> run_diff(const DiffArgs& a) {
  Expected<std::string> first = read_input(a.before, "a partition record or a TORCH_TRACE log");
  REMAT_TRY(first);
  if (looks_like_trace_log(*first)) return diff_logged(a);
  for (const CLI::Option* o : {a.against_flag, a.budget_flag, a.time_limit_flag, a.gap_flag}) {
    if (o->count() > 0)
      return error_message("remat diff: " + o->get_name() +
                           " goes with a TORCH_TRACE log; two partition records are compared "
                           "as they are");
  }
  if (!a.compile.empty())
    return file_error(display_name(a.before),
                      "--compile picks a compile of a TORCH_TRACE log, and this is not one");
  if (a.after.empty())
    return error_message("remat diff: a partition record is compared with a second one (AFTER)");
  std::optional<records::PartitionRecord> records[2];
  const std::string* paths[2] = {&a.before, &a.after};
  for (int i = 0; i < 2; ++i) {
    Expected<records::PartitionRecord> r = read_partition_record_file(*paths[i]);
    REMAT_TRY(r);
    records[i] = std::move(*r);
  }
  print_diff(*records[0], display_name(a.before), *records[1], display_name(a.after));
  return kExitOk;
}

}  // namespace

void add_diff_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "diff",
      "Compare two partitions of the same joint graph (partition records: remat partition -o's "
      "report.json, a report's remat_partition_N.json): the totals of each, and every value "
      "that went from saved to recomputed or back, with its bytes, FLOPs and reason. Given a "
      "TORCH_TRACE log, compares what PyTorch saved in a compile (read off the forward and "
      "backward graphs it logged) with remat's --against STRATEGY at --budget for the joint graph "
      "it logged: `remat diff LOG --compile 3/0 --against optimal --budget 0.5`.");
  auto a = std::make_shared<DiffArgs>();
  cmd->add_option("before", a->before, "the first partition record, or a TORCH_TRACE log")
      ->required();
  cmd->add_option("after", a->after, "the second partition record");
  add_compile_option(*cmd, a->compile);
  a->against_flag = cmd->add_option("--against", a->against,
                                    "with a log: the strategy remat partitions the logged joint "
                                    "graph with (min-cut, default, optimal; default optimal)")
                        ->check(CLI::IsMember({"min-cut", "default", "optimal"}));
  a->budget_flag = cmd->add_option("--budget", a->budget,
                                   "with a log: the activation memory budget, a fraction in [0, 1] "
                                   "of the min-cut's activation memory or bytes such as 24MB");
  a->time_limit_flag = cmd->add_option("--time-limit", a->time_limit,
                                       "with a log and the optimal strategy: seconds the solver "
                                       "may take (default 60)")
                           ->check(CLI::PositiveNumber);
  a->gap_flag = cmd->add_option("--gap", a->gap_percent,
                                "with a log and the optimal strategy: stop within this many "
                                "percent of the optimum (default 0)")
                    ->check(CLI::Range(0.0, 100.0));
  run_verb(*cmd, a, exit_code, &run_diff);
}

}  // namespace remat::cli
