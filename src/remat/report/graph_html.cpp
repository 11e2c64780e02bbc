#include "remat/report/graph_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <unordered_map>

#include "remat/fxtext/recompute_tags.h"
#include "remat/fxtext/statement_call.h"
#include "remat/fxtext/tensor_annotation.h"
#include "remat/fxtext/text_scan.h"
#include "remat/report/glossary.h"
#include "remat/report/graph_script.h"
#include "remat/report/html.h"
#include "remat/support/json_text.h"

namespace remat::report {
namespace {

using fxtext::trim;

// `# ac_graph_id: 2 - PREFER_RECOMPUTE` alone on its line: the seed's placement.
bool is_standalone_tag(std::string_view comment) {
  std::optional<fxtext::CommentTags> tags = fxtext::comment_tags(comment);
  return tags && tags->standalone;
}

}  // namespace

PartitionMarks marks_from_graphs(const std::vector<GraphLine>& forward,
                                 const std::vector<GraphLine>& backward) {
  PartitionMarks m;
  m.source = "derived from the logged forward and backward graphs (no partition record)";
  std::unordered_set<std::string> forward_statements, forward_inputs;
  for (const GraphLine& g : forward) {
    m.forward.insert(g.name);
    (g.input ? forward_inputs : forward_statements).insert(g.name);
  }
  for (const GraphLine& g : backward) {
    m.backward.insert(g.name);
    if (g.input && g.name.find("tangents") == std::string::npos) {
      m.saved[g.name] = g.bytes.value_or(0);
      if (forward_inputs.contains(g.name)) m.inputs.insert(g.name);
      m.why[g.name] = "an input of the backward graph: the forward returns it for the backward";
    } else if (!g.input && forward_statements.contains(g.name)) {
      m.recomputed.insert(g.name);
      m.why[g.name] = "computed by both the forward and the backward graph";
    }
  }
  return m;
}

std::optional<Mark> PartitionMarks::mark(const std::string& name) const {
  if (saved.contains(name)) return Mark::Saved;
  if (recomputed.contains(name)) return Mark::Recomputed;
  bool fw = forward.contains(name), bw = backward.contains(name);
  if (fw && !bw) return Mark::ForwardOnly;
  if (bw && !fw)
    return joint_forward.contains(name) ? Mark::ForwardOpInBackward : Mark::BackwardOnly;
  return std::nullopt;
}

std::unordered_set<std::string> joint_forward_nodes(std::string_view text,
                                                    const std::vector<GraphLine>& nodes) {
  std::vector<std::string_view> lines = fxtext::split_lines(text);
  std::unordered_set<std::string_view> backward;
  std::unordered_set<std::string> forward;
  std::vector<std::string_view> reads;  // reused: a statement per node
  for (const GraphLine& g : nodes) {
    if (g.input) {
      if (g.name.find("tangents") != std::string::npos) backward.insert(g.name);
      continue;
    }
    std::string_view line = g.line < lines.size() ? lines[g.line] : std::string_view();
    fxtext::statement_operands(line, reads);
    if (std::ranges::any_of(reads, [&](std::string_view r) { return backward.contains(r); }))
      backward.insert(g.name);
    else
      forward.insert(g.name);
  }
  return forward;
}

void append_graph_html(std::string& out, std::string_view title, std::string_view text,
                       const std::vector<GraphLine>& nodes, const PartitionMarks* marks,
                       std::string_view text_url) {
  // The text's lines, and for each the first of its nodes (graph_lines lists them in line order).
  std::vector<std::string_view> lines = fxtext::split_lines(text);
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> first_node(lines.size(), kNone);
  std::map<int64_t, std::string> region_style;  // id -> its lines' style
  size_t inputs = 0;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const GraphLine& g = nodes[k];
    if (g.line < lines.size() && first_node[g.line] == kNone)
      first_node[g.line] = static_cast<uint32_t>(k);
    if (g.ac_graph_id) region_style.try_emplace(*g.ac_graph_id);
    inputs += g.input;
  }
  // Region colors: evenly spread hues, the same id always the same color.
  for (auto& [id, style] : region_style) {
    style = "background:" + region_fill(id) + ";border-left:4px solid " + region_stroke(id);
  }
  out += "<h1>";
  append_html_escaped(out, title);
  // Counted as torch.fx counts them (and `remat info`): the output node too.
  bool returns = text.find("\n    return ") != std::string_view::npos ||
                 text.find("\n        return ") != std::string_view::npos;
  out += "</h1>\n<p class=\"meta\">" +
         fmt::format("{} nodes: {} inputs, {} ops{}", nodes.size() + (returns ? 1 : 0), inputs,
                     nodes.size() - inputs, returns ? ", the output" : "") +
         " &middot; " + human_bytes(text.size());
  if (!text_url.empty()) {
    out += " &middot; <a href=\"";
    append_html_escaped(out, text_url);
    out += "\">plain text</a>";
  }
  out += "</p>\n";
  // A joint graph (it takes tangents) without one tag: say so rather than show nothing.
  if (region_style.empty() && text.find("tangents_") != std::string_view::npos) {
    out +=
        "<p class=\"legend\" id=\"no-regions\">No checkpoint regions: this joint graph carries "
        "no recompute tags (<code>ac_graph_id</code>, <code>recompute</code>). Either nothing "
        "was checkpointed, or the PyTorch that traced it does not tag its regions (1.13's "
        "<code>torch.utils.checkpoint</code> leaves none). Activation checkpointing under "
        "<code>torch.compile</code> (PyTorch 2.1 and later) tags every region, and so does "
        "<code>remat trace --checkpoint each-layer</code>.</p>\n";
  }
  if (!region_style.empty()) {
    out += "<p class=\"legend\" id=\"regions\">Checkpoint regions: ";
    for (const auto& [id, style] : region_style) {
      out += "<span style=\"background:" + region_fill(id) + ";border-left:4px solid " +
             region_stroke(id) + ";padding:0 .4em\">ac_graph_id " + std::to_string(id) + "</span>";
    }
    out += "</p>\n";
  }
  uint64_t activation_bytes = 0, input_bytes = 0;
  size_t counts[5] = {0, 0, 0, 0, 0};
  std::vector<std::optional<Mark>> node_marks(marks ? nodes.size() : 0);
  if (marks) {
    for (size_t k = 0; k < nodes.size(); ++k) {
      if ((node_marks[k] = marks->mark(nodes[k].name))) ++counts[static_cast<int>(*node_marks[k])];
    }
    for (const auto& [name, bytes] : marks->saved)
      (marks->inputs.contains(name) ? input_bytes : activation_bytes) += bytes;
    out += fmt::format(
        "<p class=\"legend\" id=\"partition-legend\"><span class=\"mark mark-saved\">saved</span> "
        "{} activations ({}){} "
        "<span class=\"mark mark-recomputed\">recomputed</span> {} <span class=\"mark "
        "mark-forward\">forward only</span> {} "
        "<span class=\"mark mark-backward\">backward only</span> {} {}<span "
        "class=\"meta\">{}</span>{}</p>\n",
        marks->saved.size() - marks->inputs.size(), human_bytes(activation_bytes),
        marks->inputs.empty()
            ? ""
            : fmt::format(" and {} inputs ({})", marks->inputs.size(), human_bytes(input_bytes)),
        counts[1], counts[2], counts[3],
        counts[4] == 0 ? ""
                       : fmt::format("<span class=\"mark mark-moved\">forward op, run in the "
                                     "backward</span> {} ",
                                     counts[4]),
        html_escape(marks->source),
        marks->pictures.empty()
            ? ""
            : " <a id=\"partition-pictures\" href=\"" + html_escape(marks->pictures) +
                  "\">memory over time, the budget curve, the region map</a>");
  }
  // The why, beside the text: every saved and recomputed node with the partitioner's reason,
  // linked to its line.
  std::string panel;
  if (marks && (!marks->saved.empty() || !marks->recomputed.empty())) {
    std::unordered_map<std::string_view, size_t> line_of;  // hashed: a joint has thousands
    for (const GraphLine& g : nodes) line_of.try_emplace(g.name, g.line + 1);
    auto link = [&](const std::string& name) {
      auto at = line_of.find(name);
      return at == line_of.end() ? "<code>" + html_escape(name) + "</code>"
                                 : "<a href=\"#L" + std::to_string(at->second) + "\"><code>" +
                                       html_escape(name) + "</code></a>";
    };
    auto why = [&](const std::string& name) {
      auto at = marks->why.find(name);
      return at == marks->why.end() ? std::string() : reason_html(at->second, marks->glossary);
    };
    // In the order of the text (names the text lacks last).
    auto in_text_order = [&](std::vector<std::string> names) {
      auto line = [&](const std::string& n) {
        auto at = line_of.find(n);
        return at == line_of.end() ? SIZE_MAX : at->second;
      };
      std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
        return line(a) < line(b);
      });
      return names;
    };
    // The activations (what the user can act on) first; the inputs fold into one line.
    std::vector<std::string> activations, saved_inputs;
    for (const auto& [name, bytes] : marks->saved)
      (marks->inputs.contains(name) ? saved_inputs : activations).push_back(name);
    auto saved_table = [&](std::vector<std::string> names, std::string_view id) {
      std::string t = "<table id=\"" + std::string(id) +
                      "\"><tr><th>value</th><th>bytes</th><th>why saved</th></tr>\n";
      for (const std::string& name : in_text_order(std::move(names))) {
        t += "<tr><td>" + link(name) + "</td><td class=\"num\">" +
             human_bytes(marks->saved.at(name)) + "</td><td>" + why(name) + "</td></tr>\n";
      }
      return t + "</table>\n";
    };
    size_t activation_count = activations.size(), input_count = saved_inputs.size();
    panel = "<aside id=\"why-panel\"><h2>Saved activations (" + human_count(activation_count) +
            ", " + human_bytes(activation_bytes) + ")</h2>\n";
    panel += saved_table(std::move(activations), "why-saved");
    if (input_count > 0) {
      panel += "<details id=\"why-saved-inputs\"><summary>and " + human_count(input_count) +
               " input" + (input_count == 1 ? "" : "s") + " the backward reads anyway (" +
               human_bytes(input_bytes) + ")</summary>\n";
      panel += saved_table(std::move(saved_inputs), "why-saved-inputs-table") + "</details>\n";
    }
    uint64_t total_flops = 0;
    for (const auto& [name, f] : marks->flops) total_flops += f;
    panel += "<h2>Recomputed (" + human_count(marks->recomputed.size()) + ", " +
             human_flops(total_flops) +
             ")</h2>\n<table id=\"why-recomputed\"><tr><th>node</th><th>cost</th><th>why "
             "recomputed</th></tr>\n";
    for (const std::string& name :
         in_text_order({marks->recomputed.begin(), marks->recomputed.end()})) {
      auto f = marks->flops.find(name);
      panel += "<tr><td>" + link(name) + "</td><td class=\"num\">" +
               human_flops(f == marks->flops.end() ? 0 : f->second) + "</td><td>" + why(name) +
               "</td></tr>\n";
    }
    panel += "</table>\n</aside>\n";
    out += "<div class=\"graph-layout\">";
  }
  // Standalone tag lines that no statement follows belong to inputs: the backward's saved values
  // keep the tags of the forward nodes they were, and PyTorch prints them after the signature.
  std::vector<bool> input_tag(lines.size());
  size_t first_input_tag = SIZE_MAX, last_input_tag = 0, input_tag_count = 0;
  for (size_t i = 0; i < lines.size();) {
    if (!is_standalone_tag(trim(lines[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < lines.size() && is_standalone_tag(trim(lines[j]))) ++j;
    if (j >= lines.size() || first_node[j] == kNone) {
      for (size_t k = i; k < j; ++k) input_tag[k] = true;
      first_input_tag = std::min(first_input_tag, i);
      last_input_tag = j - 1;
      input_tag_count += j - i;
    }
    i = j;
  }
  if (input_tag_count) {
    out += std::string(
               "<p class=\"note\" id=\"input-tags\">The tag lines right after the signature (") +
           (input_tag_count > 1 ? "lines " : "line ") + std::to_string(first_input_tag + 1) +
           (input_tag_count > 1 ? "&ndash;" + std::to_string(last_input_tag + 1) : "") +
           ") belong to inputs: values the forward saved keep the recompute tags of the nodes they "
           "were, and PyTorch prints "
           "them there (remat does the same, for byte parity). They say which checkpoint region "
           "produced a saved value; "
           "nothing is recomputed for them.</p>\n";
  }
  // The text once, escaped (readable as it is), and what the browser needs to number, anchor,
  // highlight and mark its lines (graph_script.cpp): the first node of each line with its region,
  // the input tags, the chips. The newline after <pre> is the one HTML drops.
  out += "<pre class=\"code\" id=\"graph-code\">\n";
  append_html_text(out, text);
  out += "</pre>\n";
  // Compact, since a page holds one entry per line and per chip: trailing defaults are left out
  // (graph_script.cpp spells them out). Written by hand: it is most of a page's building.
  std::string data = "{\"nodes\":[";
  char comma = ' ';
  for (size_t n = 0; n < lines.size(); ++n) {
    if (first_node[n] == kNone) continue;
    // [line, first node's name, its region, how many nodes the line defines]
    const GraphLine& g = nodes[first_node[n]];
    size_t on_line = 0;
    for (size_t k = first_node[n]; k < nodes.size() && nodes[k].line == n; ++k) ++on_line;
    data += comma;
    data += '[';
    json::append_int(data, static_cast<int64_t>(n));
    data += ',';
    json::append_string(data, g.name);
    if (g.ac_graph_id || on_line > 1) {
      data += ',';
      if (g.ac_graph_id)
        json::append_int(data, *g.ac_graph_id);
      else
        data += "null";
    }
    if (on_line > 1) {
      data += ',';
      json::append_int(data, static_cast<int64_t>(on_line));
    }
    data += ']';
    comma = ',';
  }
  data += "],\"inputTags\":[";
  comma = ' ';
  for (size_t n = 0; n < lines.size(); ++n) {
    if (!input_tag[n]) continue;
    data += comma;
    json::append_int(data, static_cast<int64_t>(n));
    comma = ',';
  }
  data += "],\"regions\":{";
  comma = ' ';
  for (const auto& [id, style] : region_style) {
    data += comma;
    json::append_string(data, std::to_string(id));
    data += ':';
    json::append_string(data, style);
    comma = ',';
  }
  data += '}';
  if (marks) {
    // Chips go in a gutter before the code, so that they stay in view on long lines; the reason
    // is the chip's tooltip. [line, kind, bytes, reason, cost, name]: kind is the Mark, or 5 for
    // an input the backward reads (saved too, but no activation memory: its own chip); the
    // reasons are listed once; name where it is not the line's first node.
    std::vector<std::string_view> reasons;
    std::unordered_map<std::string_view, size_t> reason_index;
    std::optional<uint64_t> last_bytes;
    std::string last_bytes_text;
    data += ",\"chips\":[";
    comma = ' ';
    for (size_t k = 0; k < nodes.size(); ++k) {
      const GraphLine& node = nodes[k];
      const std::optional<Mark>& m = node_marks[k];
      if (!m || node.line >= lines.size()) continue;
      std::optional<uint64_t> bytes = node.bytes;
      if (*m == Mark::Saved) bytes = marks->saved.at(node.name);
      bool input = *m == Mark::Saved && marks->inputs.contains(node.name);
      int64_t reason = -1;
      std::string cost;
      if (*m == Mark::Saved || *m == Mark::Recomputed) {  // the only nodes with reasons and costs
        if (auto w = marks->why.find(node.name); w != marks->why.end()) {
          auto [at, added] = reason_index.try_emplace(w->second, reasons.size());
          if (added) reasons.push_back(w->second);
          reason = static_cast<int64_t>(at->second);
        }
        if (auto f = marks->flops.find(node.name); f != marks->flops.end())
          cost = human_flops(f->second);
      }
      if (bytes != last_bytes) {  // most nodes of a graph weigh what the one before did
        last_bytes = bytes;
        last_bytes_text = bytes ? human_bytes(*bytes) : "";
      }
      bool first = first_node[node.line] == k;
      data += comma;
      data += '[';
      json::append_int(data, static_cast<int64_t>(node.line));
      data += ',';
      json::append_int(data, input ? 5 : static_cast<int>(*m));
      data += ',';
      json::append_string(data, last_bytes_text);
      if (reason >= 0 || !cost.empty() || !first) {
        data += ',';
        json::append_int(data, reason);
      }
      if (!cost.empty() || !first) {
        data += ',';
        json::append_string(data, cost);
      }
      if (!first) {
        data += ',';
        json::append_string(data, node.name);
      }
      data += ']';
      comma = ',';
    }
    data += "],\"reasons\":[";
    comma = ' ';
    for (std::string_view r : reasons) {
      data += comma;
      json::append_string(data, r);
      comma = ',';
    }
    data += ']';
  }
  data += '}';
  append_script_json(out, "graph-data", data);
  out += "<script>";
  out += graph_page_script();
  out += "</script>\n";
  if (!panel.empty()) out += panel + "</div>\n";
}

std::string graph_html(std::string_view title, std::string_view text, const PartitionMarks* marks,
                       std::string_view text_url) {
  std::string out;
  append_graph_html(out, title, text, graph_lines(text), marks, text_url);
  return out;
}

}  // namespace remat::report
