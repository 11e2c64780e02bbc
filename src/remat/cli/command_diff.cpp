// remat diff A B: two partitions of the same joint graph side by side: the totals of each and
// every value whose fate changed between saved and recomputed, with its bytes, FLOPs and reason.
#include <fmt/format.h>

#include <cstdlib>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/records/partition_diff.h"
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
  std::string before, after;
};

Expected<int> run_diff(const DiffArgs& a) {
  std::optional<records::PartitionRecord> records[2];
  const std::string* paths[2] = {&a.before, &a.after};
  for (int i = 0; i < 2; ++i) {
    Expected<records::PartitionRecord> r = read_partition_record_file(*paths[i]);
    REMAT_TRY(r);
    records[i] = std::move(*r);
  }
  records::PartitionDiff d = records::diff_partitions(*records[0], *records[1]);
  for (int i = 0; i < 2; ++i) {
    fmt::print("{}: {} ({}, chosen by {})\n", i == 0 ? "before" : "after ", display_name(*paths[i]),
               records[i]->strategy, records[i]->stage);
  }
  if (d.shared == 0 && !records[0]->saved_values.empty() && !records[1]->saved_values.empty()) {
    std::fputs(
        "remat diff: warning: the two partitions name no value in common: are they of "
        "the same joint graph?\n",
        stderr);
  }
  print_totals(d);
  print_changes(d.changes);
  return kExitOk;
}

}  // namespace

void add_diff_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "diff",
      "Compare two partitions of the same joint graph (partition records: remat partition -o's "
      "report.json, a report's remat_partition_N.json): the totals of each, and every value "
      "that went from saved to recomputed or back, with its bytes, FLOPs and reason.");
  auto a = std::make_shared<DiffArgs>();
  cmd->add_option("before", a->before, "the first partition record")->required();
  cmd->add_option("after", a->after, "the second partition record")->required();
  run_verb(*cmd, a, exit_code, &run_diff);
}

}  // namespace remat::cli
