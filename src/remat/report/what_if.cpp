#include "remat/report/what_if.h"

#include <fmt/format.h>

#include <algorithm>

#include "remat/records/partition_diff.h"
#include "remat/report/html.h"

namespace remat::report {
namespace {

// A word of a shell command as the reader would type it: quoted unless plainly safe.
std::string shell_word(std::string_view s) {
  bool plain = !s.empty() && std::ranges::all_of(s, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./-=:").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(s);
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// "a, b and 3 more": the first few names of a list.
std::string some_names(const std::vector<std::string>& names) {
  constexpr size_t kShown = 4;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) {
    if (i) out += ", ";
    out += "<code>" + html_escape(names[i]) + "</code>";
  }
  if (names.size() > kShown) out += fmt::format(" and {} more", names.size() - kShown);
  return out;
}

}  // namespace

std::string what_if_html(const WhatIfTable& table, const records::PartitionRecord& run,
                         std::string_view log, std::string_view compile_key) {
  std::string_view compile = compile_key;  // `--compile 3/0` for "[3/0]"
  if (compile.starts_with('[') && compile.ends_with(']'))
    compile = compile.substr(1, compile.size() - 2);
  std::string out =
      "<h2 id=\"what-if\">What if</h2>\n<p>Other partitions of this compile's joint graph, "
      "from the log alone: PyTorch's knapsack (its min-cut under "
      "<code>activation_memory_budget</code>) and remat's optimum (the least recompute FLOPs "
      "within the budget), at budgets of the min-cut's activation memory and at the memory this "
      "run used. Each row says what changes fate against this run, and the command that writes "
      "the selective-checkpointing policy making PyTorch save that set.</p>\n";
  if (table.within_regions)
    out +=
        "<p>remat's optimum decides inside the checkpoint regions only, as a policy can: outside "
        "them PyTorch's min-cut decides under any policy, and the optimum keeps its choice.</p>\n";
  else if (!table.rows.empty())
    out +=
        "<p>This joint graph has no checkpoint region, so no policy reaches it; "
        "<code>remat.partition_fn_for(\"optimal\", budget)</code> partitions it so "
        "under torch.compile.</p>\n";
  if (!table.note.empty()) out += "<p class=\"note\">" + html_escape(table.note) + "</p>\n";
  if (table.rows.empty()) return out;
  out +=
      "<table id=\"what-if-table\"><tr><th>partition</th><th>budget</th><th>activation "
      "memory</th><th>recompute</th><th>peak estimate</th><th>saved instead of recomputed</th>"
      "<th>recomputed instead of saved</th><th>policy</th></tr>\n";
  for (const WhatIfRow& row : table.rows) {
    out += "<tr><td>" + html_escape(row.strategy) + "</td><td class=\"num\">" +
           html_escape(row.budget) + "</td>";
    if (!row.partition) {
      out += "<td colspan=\"6\">" + html_escape(row.note) + "</td></tr>\n";
      continue;
    }
    const records::PartitionRecord& p = *row.partition;
    records::PartitionDiff d = records::diff_partitions(run, p);
    std::vector<std::string> saved, recomputed;
    for (const records::FateChange& c : d.changes) {
      if (c.input) continue;  // an input moves no activation memory
      if (c.after == records::Fate::Saved) saved.push_back(c.name);
      if (c.after == records::Fate::Recomputed) recomputed.push_back(c.name);
    }
    std::string command =
        row.policy_strategy.empty()
            ? std::string()
            : fmt::format("remat policy {} --compile {} --strategy {} --budget {} -o policy.py",
                          shell_word(log), shell_word(compile), row.policy_strategy,
                          shell_word(row.policy_budget));
    out += fmt::format(
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>"
        "<td>{}</td><td>{}{}</td></tr>\n",
        p.activation_bytes ? human_bytes(static_cast<uint64_t>(*p.activation_bytes)) : "-",
        p.recompute_flops ? human_flops(static_cast<uint64_t>(*p.recompute_flops)) : "-",
        human_bytes(static_cast<uint64_t>(p.peak_memory_bytes)),
        saved.empty() ? "none" : some_names(saved),
        recomputed.empty() ? "none" : some_names(recomputed),
        command.empty() ? std::string("none (no checkpoint region)")
                        : "<code class=\"command\">" + html_escape(command) + "</code>",
        row.note.empty() ? "" : "<br><span class=\"meta\">" + html_escape(row.note) + "</span>");
  }
  out += "</table>\n";
  out += fmt::format(
      "<p class=\"meta\">This run: {} of activation memory, {} saved values, {} recomputed "
      "nodes.</p>\n",
      human_bytes(run.activation_bytes ? static_cast<uint64_t>(*run.activation_bytes)
                                       : run.split_saved().activation_bytes),
      run.saved_values.size(), run.recomputed.size());
  return out;
}

}  // namespace remat::report
