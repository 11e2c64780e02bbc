#include "remat/report/diff_page.h"

#include <cstdlib>

#include "remat/report/glossary.h"
#include "remat/report/html.h"

namespace remat::report {
namespace {

std::string bytes_text(int64_t b) {
  return human_bytes(static_cast<uint64_t>(std::llabs(b)));
}
std::string flops_text(int64_t f) {
  return human_flops(static_cast<uint64_t>(std::llabs(f)));
}
std::string count_text(int64_t n) {
  return human_count(static_cast<uint64_t>(std::llabs(n)));
}

}  // namespace

std::string partition_diff_body(const records::PartitionDiff& d, std::string_view before,
                                std::string_view after, std::string_view glossary) {
  std::string out = "<h1>Partition " + html_escape(before) + " against " + html_escape(after) +
                    "</h1>\n<p>Two partitions of the same joint graph: what each keeps for the "
                    "backward, and every value that changed fate between them.</p>\n";
  out += "<table id=\"diff-totals\"><tr><th></th><th>" + html_escape(before) + "</th><th>" +
         html_escape(after) + "</th><th>change</th></tr>\n";
  auto row = [&](std::string_view what, int64_t x, int64_t y, std::string (*text)(int64_t)) {
    int64_t change = y - x;
    out += "<tr><td>" + std::string(what) + "</td><td class=\"num\">" + text(x) +
           "</td><td class=\"num\">" + text(y) + "</td><td class=\"num\">" +
           (change == 0 ? std::string("0") : (change > 0 ? "+" : "&minus;") + text(change)) +
           "</td></tr>\n";
  };
  const records::PartitionTotals &a = d.before, &b = d.after;
  row("saved activations", static_cast<int64_t>(a.activations), static_cast<int64_t>(b.activations),
      count_text);
  row("activation memory", a.activation_bytes, b.activation_bytes, bytes_text);
  row("inputs also saved", static_cast<int64_t>(a.inputs), static_cast<int64_t>(b.inputs),
      count_text);
  row("recomputed nodes", static_cast<int64_t>(a.recomputed), static_cast<int64_t>(b.recomputed),
      count_text);
  if (a.recompute_flops && b.recompute_flops)
    row("recompute cost", *a.recompute_flops, *b.recompute_flops, flops_text);
  row("peak memory", a.peak_memory_bytes, b.peak_memory_bytes, bytes_text);
  out += "</table>\n";
  out += "<h2>Changed fate (" + human_count(d.changes.size()) + ")</h2>\n";
  if (d.changes.empty()) {
    out += "<p id=\"no-changes\">None: both save and recompute the same values.</p>\n";
    return out;
  }
  out += "<table id=\"diff-changes\"><tr><th>value</th><th>" + html_escape(before) + "</th><th>" +
         html_escape(after) + "</th><th>bytes</th><th>recompute cost</th><th>why, in " +
         html_escape(after) + "</th></tr>\n";
  for (const records::FateChange& c : d.changes) {
    out += "<tr><td><code>" + html_escape(c.name) + "</code></td><td>" +
           std::string(records::fate_name(c.before)) + "</td><td>" +
           std::string(records::fate_name(c.after)) + "</td><td class=\"num\">" +
           (c.bytes ? bytes_text(c.bytes) + (c.input ? " (input)" : "") : "") +
           "</td><td class=\"num\">" + (c.flops ? flops_text(*c.flops) : "") + "</td><td>" +
           reason_html(c.reason, glossary) + "</td></tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace remat::report
