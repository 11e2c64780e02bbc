#include "remat/report/diff_page.h"

#include <cstdlib>

#include "remat/report/glossary.h"
#include "remat/report/html.h"

namespace remat::report {
std::string total_text(int64_t v, records::TotalRow::Unit unit) {
  auto magnitude = static_cast<uint64_t>(std::llabs(v));
  switch (unit) {
    case records::TotalRow::Unit::Bytes:
      return human_bytes(magnitude);
    case records::TotalRow::Unit::Flops:
      return human_flops(magnitude);
    case records::TotalRow::Unit::Count:
      break;
  }
  return human_count(magnitude);
}

std::string partition_diff_body(const records::PartitionDiff& d, std::string_view before,
                                std::string_view after, std::string_view glossary) {
  std::string out = "<h1>Partition " + html_escape(before) + " against " + html_escape(after) +
                    "</h1>\n<p>Two partitions of the same joint graph: what each keeps for the "
                    "backward, and every value that changed fate between them.</p>\n";
  out += "<table id=\"diff-totals\"><tr><th></th><th>" + html_escape(before) + "</th><th>" +
         html_escape(after) + "</th><th>change</th></tr>\n";
  for (const records::TotalRow& row : records::total_rows(d)) {
    int64_t change = row.after - row.before;
    out += "<tr><td>" + std::string(row.label) + "</td><td class=\"num\">" +
           total_text(row.before, row.unit) + "</td><td class=\"num\">" +
           total_text(row.after, row.unit) + "</td><td class=\"num\">" +
           (change == 0 ? std::string("0")
                        : (change > 0 ? "+" : "&minus;") + total_text(change, row.unit)) +
           "</td></tr>\n";
  }
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
    out +=
        "<tr><td><code>" + html_escape(c.name) + "</code></td><td>" +
        std::string(records::fate_name(c.before)) + "</td><td>" +
        std::string(records::fate_name(c.after)) + "</td><td class=\"num\">" +
        (c.bytes ? total_text(c.bytes, records::TotalRow::Unit::Bytes) + (c.input ? " (input)" : "")
                 : "") +
        "</td><td class=\"num\">" +
        (c.flops ? total_text(*c.flops, records::TotalRow::Unit::Flops) : "") + "</td><td>" +
        reason_html(c.reason, glossary) + "</td></tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace remat::report
