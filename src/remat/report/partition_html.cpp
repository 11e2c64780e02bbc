#include "remat/report/partition_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "remat/report/html.h"

namespace remat::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kTableRows = 500;

std::string string_field(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

const Json& array_field(const Json& object, const char* key) {
  static const Json kEmpty = Json::array();
  return object.is_object() && object.contains(key) && object[key].is_array() ? object[key]
                                                                              : kEmpty;
}

}  // namespace

uint64_t unsigned_field(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_number_unsigned()
             ? object[key].get<uint64_t>()
             : 0;
}

PartitionMarks marks_from_record(const Json& p) {
  PartitionMarks marks;
  marks.source = "from the remat_partition record";
  for (const Json& v : array_field(p, "saved_values")) {
    std::string name = string_field(v, "name");
    if (name.empty()) continue;
    marks.saved[name] = unsigned_field(v, "bytes");
    if (std::string why = string_field(v, "reason"); !why.empty()) marks.why[name] = why;
  }
  for (const Json& v : array_field(p, "recomputed")) {
    std::string name = string_field(v, "name");
    if (name.empty()) continue;
    marks.recomputed.insert(name);
    marks.flops[name] = unsigned_field(v, "flops");
    if (std::string why = string_field(v, "reason"); !why.empty()) marks.why[name] = why;
  }
  return marks;
}

std::string partition_summary(const Json& p) {
  std::string out =
      "<table class=\"partition\"><tr><th>strategy</th><th>chosen by</th><th>saved "
      "values</th><th>saved bytes</th>"
      "<th title=\"distinct storage the saved values keep alive beyond the inputs\">activation "
      "memory</th>"
      "<th>recomputed nodes</th><th>recompute cost</th><th title=\"live tensor bytes, forward then "
      "backward\">peak memory</th>"
      "<th title=\"value of the minimum cut (PyTorch's node weights)\">cut value</th></tr><tr>";
  out += "<td>" + html_escape(string_field(p, "strategy")) + "</td>";
  out += "<td>" + html_escape(string_field(p, "stage")) + "</td>";
  out += "<td class=\"num\">" + human_count(array_field(p, "saved_values").size()) + "</td>";
  // A record read off PyTorch's graphs lacks some numbers: those cells say so.
  auto cell = [&](const char* key, std::string (*format)(uint64_t)) {
    bool known = p.is_object() && p.contains(key) && p[key].is_number_unsigned();
    return "<td class=\"num\">" + (known ? format(unsigned_field(p, key)) : "&mdash;") + "</td>";
  };
  out += cell("saved_bytes_total", human_bytes);
  out += cell("activation_bytes", human_bytes);
  out += "<td class=\"num\">" + human_count(array_field(p, "recomputed").size()) + "</td>";
  out += cell("recompute_flops", human_flops);
  out += cell("peak_memory_bytes", human_bytes);
  std::string cut = "&mdash;";
  if (p.is_object() && p.contains("cut_value") && p["cut_value"].is_number()) {
    double v = p["cut_value"].get<double>();
    cut = v >= 0 && v == static_cast<double>(static_cast<uint64_t>(v))
              ? human_count(static_cast<uint64_t>(v))
              : fmt::format("{}", v);
  }
  out += "<td class=\"num\">" + cut + "</td></tr></table>";
  return out;
}

std::string partition_page(const Json& p, std::string_view compile_key, const NodeLinks* links) {
  auto node = [&](const std::string& name) {
    std::optional<std::string> href = links ? links->href(name) : std::nullopt;
    std::string code = "<code>" + html_escape(name) + "</code>";
    return href ? "<a href=\"" + html_escape(*href) + "\">" + code + "</a>" : code;
  };
  std::string body = "<h1>Partition " + html_escape(compile_key) + "</h1>\n";
  body +=
      "<p>What the partitioner saved for the backward and what the backward computes again, each "
      "with the reason "
      "the partitioner gave. The joint graph's page marks the same nodes in its text.</p>\n";
  body += partition_summary(p) + "\n";
  if (p.is_object() && p.contains("charts") && p["charts"].is_object()) {
    const Json& charts = p["charts"];
    body += "<section class=\"charts\">\n" + memory_timeline_figure(charts, links) +
            budget_curve_figure(p) + region_map_figure(charts, links) + "</section>\n";
  }
  // Saved values, the largest first: the activations (what the user can act on) before the
  // inputs the backward reads anyway (parameters, primals), which fold into one line.
  const Json& saved = array_field(p, "saved_values");
  std::vector<const Json*> activations, inputs;
  for (const Json& v : saved) {
    bool input = v.is_object() && v.contains("input") && v["input"].is_boolean() && v["input"];
    (input ? inputs : activations).push_back(&v);
  }
  for (auto* list : {&activations, &inputs}) {
    std::stable_sort(list->begin(), list->end(), [](const Json* a, const Json* b) {
      return unsigned_field(*a, "bytes") > unsigned_field(*b, "bytes");
    });
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
  auto saved_table = [&](std::vector<const Json*> rows, std::string_view id) {
    size_t all = rows.size();
    if (rows.size() > kTableRows) rows.resize(kTableRows);
    std::string t = "<table id=\"" + std::string(id) +
                    "\"><tr><th>value</th><th>shape</th><th>bytes</th><th>why saved</th>"
                    "<th>region</th></tr>\n";
    for (const Json* v : rows) {
      std::string region = v->contains("region") && (*v)["region"].is_number_integer()
                               ? std::to_string((*v)["region"].get<int64_t>())
                               : "";
      t += "<tr><td>" + node(string_field(*v, "name")) + "</td><td><code>" +
           html_escape(string_field(*v, "shape")) + "</code></td><td class=\"num\">" +
           human_bytes(unsigned_field(*v, "bytes")) + "</td><td>" +
           html_escape(string_field(*v, "reason")) + "</td><td class=\"num\">" + region +
           "</td></tr>\n";
    }
    return t + "</table>\n" + more(rows.size(), all, id);
  };
  auto bytes_of = [](const std::vector<const Json*>& rows) {
    uint64_t total = 0;
    for (const Json* v : rows) total += unsigned_field(*v, "bytes");
    return total;
  };
  // Records written before remat marked inputs (`"input"`) cannot be split: one table.
  bool split = saved.empty() || std::ranges::any_of(saved, [](const Json& v) {
                 return v.is_object() && v.contains("input");
               });
  if (!split) {
    body += "<h2>Saved values (" + human_count(saved.size()) + ", the largest first)</h2>\n" +
            saved_table(activations, "saved-values");  // no value marked: all of them
  } else {
    body += "<h2>Saved activations (" + human_count(activations.size()) + ", " +
            human_bytes(bytes_of(activations)) + ", the largest first)</h2>\n";
    body += activations.empty()
                ? "<p id=\"no-saved-activations\">None: the backward needs nothing from the "
                  "forward beyond its inputs.</p>\n"
                : saved_table(activations, "saved-values");
    if (!inputs.empty()) {
      body += "<details id=\"saved-inputs\"><summary>and " + human_count(inputs.size()) + " input" +
              (inputs.size() == 1 ? "" : "s") + " the backward reads anyway (" +
              human_bytes(bytes_of(inputs)) +
              " of parameters and primals: no activation memory)</summary>\n" +
              saved_table(inputs, "saved-inputs-table") + "</details>\n";
    }
  }
  const Json& recomputed = array_field(p, "recomputed");
  body += "<h2>Recomputed in the backward (" + human_count(recomputed.size()) +
          ")</h2>\n<table id=\"recomputed-nodes\"><tr><th>node</th><th>op</th><th>cost</th><th>why "
          "recomputed</th></tr>\n";
  size_t shown = std::min(recomputed.size(), kTableRows);
  for (size_t i = 0; i < shown; ++i) {
    const Json& v = recomputed[i];
    body += "<tr><td>" + node(string_field(v, "name")) + "</td><td><code>" +
            html_escape(string_field(v, "target")) + "</code></td><td class=\"num\">" +
            human_flops(unsigned_field(v, "flops")) + "</td><td>" +
            html_escape(string_field(v, "reason")) + "</td></tr>\n";
  }
  body += "</table>\n" + more(shown, recomputed.size(), "recomputed-nodes");
  const Json& banned = array_field(p, "banned");
  if (!banned.empty()) {
    body += "<h2>Banned from recomputation (" + human_count(banned.size()) +
            ")</h2>\n<table id=\"banned-nodes\"><tr><th>node</th><th>why</th></tr>\n";
    size_t shown_banned = std::min(banned.size(), kTableRows);
    for (size_t i = 0; i < shown_banned; ++i) {
      body += "<tr><td>" + node(string_field(banned[i], "name")) + "</td><td>" +
              html_escape(string_field(banned[i], "reason")) + "</td></tr>\n";
    }
    body += "</table>\n" + more(shown_banned, banned.size(), "banned-nodes");
  }
  const Json& notes = array_field(p, "notes");
  if (!notes.empty()) {
    body += "<h2>Notes</h2>\n<ul id=\"partition-notes\">";
    for (const Json& n : notes)
      body += "<li>" + html_escape(n.is_string() ? n.get<std::string>() : n.dump()) + "</li>";
    body += "</ul>\n";
  }
  return body;
}

}  // namespace remat::report
