#include "remat/report/partition_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "remat/report/glossary.h"
#include "remat/report/html.h"

namespace remat::report {
namespace {

constexpr size_t kTableRows = 500;

using records::PartitionRecord;
using records::SavedValue;

/// A count or size from a record as the formatters take it (a negative one, bad input, as 0).
uint64_t unsigned_of(int64_t v) {
  return v > 0 ? static_cast<uint64_t>(v) : 0;
}

std::string bytes_cell(std::optional<int64_t> bytes) {
  return "<td class=\"num\">" + (bytes ? human_bytes(unsigned_of(*bytes)) : "&mdash;") + "</td>";
}

}  // namespace

PartitionMarks marks_from_record(const PartitionRecord& p) {
  PartitionMarks marks;
  marks.source = "from the remat_partition record";
  for (const SavedValue& v : p.saved_values) {
    if (v.name.empty()) continue;
    marks.saved[v.name] = unsigned_of(v.bytes);
    if (v.input) marks.inputs.insert(v.name);
    if (!v.reason.empty()) marks.why[v.name] = v.reason;
  }
  for (const records::RecomputedNode& n : p.recomputed) {
    if (n.name.empty()) continue;
    marks.recomputed.insert(n.name);
    marks.flops[n.name] = unsigned_of(n.flops.value_or(0));
    if (!n.reason.empty()) marks.why[n.name] = n.reason;
  }
  return marks;
}

std::string partition_sentence(const PartitionRecord& p) {
  records::SavedSplit split = p.split_saved();
  auto plural = [](size_t n, std::string_view one, std::string_view many) {
    return human_count(n) + " " + std::string(n == 1 ? one : many);
  };
  std::string out;
  if (p.inputs_marked && split.activations.empty()) {
    out = "Saves <b>no activations</b> for the backward";
  } else if (p.inputs_marked) {
    out = "Saves <b>" + plural(split.activations.size(), "activation", "activations") + " (" +
          human_bytes(p.activation_bytes ? unsigned_of(*p.activation_bytes)
                                         : split.activation_bytes) +
          ")</b> for the backward";
  } else {
    out = "Saves " + plural(p.saved_values.size(), "value", "values") + " (" +
          human_bytes(unsigned_of(p.saved_bytes_total)) + ") for the backward";
  }
  out += " and recomputes <b>" + plural(p.recomputed.size(), "node", "nodes");
  if (p.recompute_flops) out += " (" + human_flops(unsigned_of(*p.recompute_flops)) + ")";
  out += "</b>";
  if (!split.offloaded.empty())
    out += "; " + plural(split.offloaded.size(), "activation waits", "activations wait") + " (" +
           human_bytes(split.offloaded_bytes) + ") in host memory, offloaded";
  if (p.inputs_marked && !split.inputs.empty())
    out += "; it also keeps " + plural(split.inputs.size(), "input", "inputs") + " (" +
           human_bytes(split.input_bytes) +
           ") the backward reads anyway (parameters, primals: no activation memory)";
  return out + ". Estimated peak: " + human_bytes(unsigned_of(p.peak_memory_bytes)) + ".";
}

std::string partition_summary(const PartitionRecord& p) {
  std::string out =
      "<table class=\"partition\"><tr><th>strategy</th><th>chosen by</th>"
      "<th title=\"saved values computed in the forward: what the memory budget and "
      "checkpointing act on\">saved activations</th>"
      "<th title=\"distinct storage the saved values keep alive beyond the inputs\">activation "
      "memory</th>"
      "<th title=\"parameters and primals the backward reads anyway: no activation "
      "memory\">inputs also saved</th>"
      "<th>recomputed nodes</th><th>recompute cost</th><th title=\"live tensor bytes, forward then "
      "backward\">peak memory</th>"
      "<th title=\"value of the minimum cut (PyTorch's node weights)\">cut value</th></tr><tr>";
  out += "<td>" + html_escape(p.strategy) + "</td>";
  out += "<td>" + html_escape(p.stage) + "</td>";
  records::SavedSplit split = p.split_saved();
  if (p.inputs_marked) {
    out += "<td class=\"num\">" + human_count(split.activations.size()) + "</td>";
    // A record read off PyTorch's graphs has no storage analysis: the activations' own bytes.
    out += p.activation_bytes ? bytes_cell(p.activation_bytes)
                              : "<td class=\"num\" title=\"the saved activations' bytes\">" +
                                    human_bytes(split.activation_bytes) + "</td>";
    out += "<td class=\"num\">" + human_count(split.inputs.size()) + " (" +
           human_bytes(split.input_bytes) + ")</td>";
  } else {
    out += "<td class=\"num\" title=\"this record does not say which are inputs\">" +
           human_count(p.saved_values.size()) + " saved values</td>" +
           bytes_cell(p.activation_bytes) + "<td class=\"num\">&mdash;</td>";
  }
  out += "<td class=\"num\">" + human_count(p.recomputed.size()) + "</td>";
  out += p.recompute_flops
             ? "<td class=\"num\">" + human_flops(unsigned_of(*p.recompute_flops)) + "</td>"
             : "<td class=\"num\">&mdash;</td>";
  out += bytes_cell(p.peak_memory_bytes);
  std::string cut = "&mdash;";
  if (p.cut_value) {
    double v = *p.cut_value;
    cut = v >= 0 && v < 9.2e18 && v == static_cast<double>(static_cast<uint64_t>(v))
              ? human_count(static_cast<uint64_t>(v))
              : fmt::format("{}", v);
  }
  out += "<td class=\"num\">" + cut + "</td></tr></table>";
  return out;
}

std::string partition_page(const PartitionRecord& p, std::string_view compile_key,
                           const NodeLinks* links, std::string_view glossary) {
  auto node = [&](const std::string& name) {
    std::optional<std::string> href = links ? links->href(name) : std::nullopt;
    std::string code = "<code>" + html_escape(name) + "</code>";
    return href ? "<a href=\"" + html_escape(*href) + "\">" + code + "</a>" : code;
  };
  std::string body = "<h1>Partition " + html_escape(compile_key) + "</h1>\n";
  body +=
      "<p>What the partitioner saved for the backward and what the backward computes again, each "
      "with the reason the partitioner gave (each reason links to what it means and what to "
      "change). The joint graph's page marks the same nodes in its text.</p>\n";
  body += partition_summary(p) + "\n";
  if (p.charts) {
    body += "<section class=\"charts\">\n" + memory_timeline_figure(*p.charts, links) +
            budget_curve_figure(p) + region_map_figure(p.charts->regions, links) + "</section>\n";
  }
  // Long graphs save and recompute thousands: the page shows the first rows of each table (the
  // record and the joint graph's side panel have them all), so that it opens at once.
  auto more = [](size_t shown, size_t all, std::string_view id) {
    return shown == all ? std::string()
                        : fmt::format(
                              "<p class=\"meta\" id=\"{}-more\">The first {} of {}: the "
                              "partition record (JSON) and the joint graph page's side "
                              "panel list them all.</p>\n",
                              id, human_count(shown), human_count(all));
  };
  auto saved_table = [&](std::vector<const SavedValue*> rows, std::string_view id) {
    size_t all = rows.size();
    if (rows.size() > kTableRows) rows.resize(kTableRows);
    std::string t = "<table id=\"" + std::string(id) +
                    "\"><tr><th>value</th><th>shape</th><th>bytes</th><th>why saved</th>"
                    "<th>region</th></tr>\n";
    for (const SavedValue* v : rows) {
      t += "<tr><td>" + node(v->name) + "</td><td><code>" + html_escape(v->shape) +
           "</code></td><td class=\"num\">" + human_bytes(unsigned_of(v->bytes)) + "</td><td>" +
           reason_html(v->reason, glossary) + "</td><td class=\"num\">" +
           (v->region ? std::to_string(*v->region) : "") + "</td></tr>\n";
    }
    return t + "</table>\n" + more(rows.size(), all, id);
  };
  records::SavedSplit split = p.split_saved();
  if (!p.inputs_marked) {
    body += "<h2>Saved values (" + human_count(p.saved_values.size()) +
            ", the largest first)</h2>\n" +
            saved_table(split.activations, "saved-values");  // no value marked: all of them
  } else {
    body += "<h2>Saved activations (" + human_count(split.activations.size()) + ", " +
            human_bytes(split.activation_bytes) + ", the largest first)</h2>\n";
    body += split.activations.empty()
                ? "<p id=\"no-saved-activations\">None: the backward needs nothing from the "
                  "forward beyond its inputs.</p>\n"
                : saved_table(split.activations, "saved-values");
    if (!split.offloaded.empty()) {
      body += "<h2>Offloaded to host memory (" + human_count(split.offloaded.size()) + ", " +
              human_bytes(split.offloaded_bytes) +
              ": saved, but not in the device's activation memory)</h2>\n" +
              saved_table(split.offloaded, "offloaded-values");
    }
    if (!split.inputs.empty()) {
      body += "<details id=\"saved-inputs\"><summary>and " + human_count(split.inputs.size()) +
              " input" + (split.inputs.size() == 1 ? "" : "s") + " the backward reads anyway (" +
              human_bytes(split.input_bytes) +
              " of parameters and primals: no activation memory)</summary>\n" +
              saved_table(split.inputs, "saved-inputs-table") + "</details>\n";
    }
  }
  body += "<h2>Recomputed in the backward (" + human_count(p.recomputed.size()) +
          ")</h2>\n<table id=\"recomputed-nodes\"><tr><th>node</th><th>op</th><th>cost</th><th>why "
          "recomputed</th></tr>\n";
  size_t shown = std::min(p.recomputed.size(), kTableRows);
  for (size_t i = 0; i < shown; ++i) {
    const records::RecomputedNode& n = p.recomputed[i];
    body += "<tr><td>" + node(n.name) + "</td><td><code>" + html_escape(n.target) +
            "</code></td><td class=\"num\">" +
            (n.flops ? human_flops(unsigned_of(*n.flops)) : "&mdash;") + "</td><td>" +
            html_escape(n.reason) + "</td></tr>\n";
  }
  body += "</table>\n" + more(shown, p.recomputed.size(), "recomputed-nodes");
  if (!p.banned.empty()) {
    body += "<h2>Banned from recomputation (" + human_count(p.banned.size()) +
            ")</h2>\n<table id=\"banned-nodes\"><tr><th>node</th><th>why</th></tr>\n";
    size_t shown_banned = std::min(p.banned.size(), kTableRows);
    for (size_t i = 0; i < shown_banned; ++i) {
      body += "<tr><td>" + node(p.banned[i].name) + "</td><td>" + html_escape(p.banned[i].reason) +
              "</td></tr>\n";
    }
    body += "</table>\n" + more(shown_banned, p.banned.size(), "banned-nodes");
  }
  if (!p.notes.empty()) {
    body += "<h2>Notes</h2>\n<ul id=\"partition-notes\">";
    for (const std::string& n : p.notes) body += "<li>" + html_escape(n) + "</li>";
    body += "</ul>\n";
  }
  return body;
}

}  // namespace remat::report
