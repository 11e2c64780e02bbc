#include "remat/report/derived_partition.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "remat/fxtext/text_scan.h"

namespace remat::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kMaxSamples = 1000;  // as remat's records: each the busiest step of its bucket

struct Step {
  std::string name;  // empty: the graph's inputs
  uint64_t live = 0, bytes = 0;
};

/// Live bytes over one graph, as remat's memory timeline counts them: inputs live from the start,
/// each statement's value born when it runs and dead after the line that frees it.
void walk(LoggedGraph g, std::vector<Step>& steps) {
  std::vector<std::string_view> lines = fxtext::split_lines(g.text);
  std::unordered_map<std::string_view, uint64_t> bytes;
  uint64_t live = 0;
  for (const GraphLine& n : *g.nodes) {
    bytes[n.name] = n.bytes.value_or(0);
    if (n.input) live += n.bytes.value_or(0);
  }
  steps.push_back({"", live, 0});
  for (const GraphLine& n : *g.nodes) {
    if (n.input) continue;
    live += n.bytes.value_or(0);
    steps.push_back({n.name, live, n.bytes.value_or(0)});
    if (n.line >= lines.size()) continue;
    for (std::string_view freed : freed_names(lines[n.line])) {
      auto at = bytes.find(freed);
      if (at == bytes.end()) continue;
      live -= std::min(live, at->second);
      at->second = 0;  // freed once
    }
  }
}

Json curve(const std::vector<Step>& steps, size_t forward_steps) {
  size_t peak = 0;
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].live > steps[peak].live) peak = i;
  Json c = {{"label", "PyTorch's partition (read off its graphs)"},
            {"steps", steps.size()},
            {"forward_steps", forward_steps},
            {"peak_bytes", steps.empty() ? 0 : steps[peak].live},
            {"peak_step", peak},
            {"peak_node", steps.empty() ? "" : steps[peak].name},
            {"samples", Json::array()}};
  size_t bucket = std::max<size_t>(1, (steps.size() + kMaxSamples - 1) / kMaxSamples);
  for (size_t start = 0; start < steps.size(); start += bucket) {
    size_t best = start;
    for (size_t i = start; i < std::min(steps.size(), start + bucket); ++i)
      if (steps[i].live > steps[best].live) best = i;
    c["samples"].push_back({{"step", best},
                            {"live", steps[best].live},
                            {"node", steps[best].name},
                            {"bytes", steps[best].bytes}});
  }
  return c;
}

Json span(size_t first, size_t last, const std::string& first_name, const std::string& last_name) {
  return Json::array({first, last, first_name, last_name});
}

Json region_map(const std::vector<GraphLine>& joint, const PartitionMarks& marks) {
  Json regions = Json::array(), saved = Json::array(), recomputed = Json::array();
  for (size_t i = 0; i < joint.size(); ++i) {
    const GraphLine& n = joint[i];
    if (n.ac_graph_id) {
      if (!regions.empty() && regions.back()[0] == *n.ac_graph_id && regions.back()[2] == i - 1) {
        regions.back()[2] = i;
        regions.back()[4] = n.name;
      } else {
        regions.push_back({*n.ac_graph_id, i, i, n.name, n.name});
      }
    }
    if (marks.saved.contains(n.name)) saved.push_back({i, n.name});
    if (marks.recomputed.contains(n.name)) {
      if (!recomputed.empty() && recomputed.back()[1] == i - 1) {
        recomputed.back()[1] = i;
        recomputed.back()[3] = n.name;
      } else {
        recomputed.push_back(span(i, i, n.name, n.name));
      }
    }
  }
  // The joint's output node is a node of remat's maps too.
  return {{"nodes", joint.size() + 1},
          {"regions", regions},
          {"saved", saved},
          {"recomputed", recomputed}};
}

}  // namespace

std::vector<std::string_view> freed_names(std::string_view line) {
  std::vector<std::string_view> out;
  std::vector<std::string_view> parts = fxtext::split_top_level(line, ";  ");
  if (parts.size() < 2) return out;
  std::string_view last = fxtext::trim(parts.back());
  constexpr std::string_view kNone = " = None";
  if (!last.ends_with(kNone)) return out;
  last.remove_suffix(kNone.size());
  fxtext::for_each_top_level(last, " = ", [&](std::string_view name) {
    name = fxtext::trim(name);
    if (!name.empty() && std::all_of(name.begin(), name.end(), fxtext::is_identifier_char))
      out.push_back(name);
    return true;
  });
  return out;
}

Json derived_record(const PartitionMarks& marks, LoggedGraph forward, LoggedGraph backward,
                    const std::vector<GraphLine>* joint) {
  Json record = {{"strategy", "PyTorch's partition"}, {"stage", marks.source}};
  Json saved = Json::array(), recomputed = Json::array();
  uint64_t saved_bytes = 0;
  // A saved value the forward graph takes as an input (a parameter, a primal) costs no
  // activation memory: the backward reads it anyway.
  std::set<std::string_view> forward_inputs;
  if (forward.nodes)
    for (const GraphLine& g : *forward.nodes)
      if (g.input) forward_inputs.insert(g.name);
  for (const auto& [name, bytes] : marks.saved) {
    auto why = marks.why.find(name);
    saved.push_back(
        {{"name", name}, {"bytes", bytes}, {"reason", why == marks.why.end() ? "" : why->second}});
    if (forward_inputs.contains(name)) saved.back()["input"] = true;
    saved_bytes += bytes;
  }
  for (const std::string& name : marks.recomputed) {
    auto why = marks.why.find(name);
    recomputed.push_back({{"name", name}, {"reason", why == marks.why.end() ? "" : why->second}});
  }
  std::vector<Step> steps;
  walk(forward, steps);
  size_t forward_steps = steps.size();
  walk(backward, steps);
  Json memory = curve(steps, forward_steps);
  record["saved_values"] = saved;
  record["saved_bytes_total"] = saved_bytes;
  record["recomputed"] = recomputed;
  record["peak_memory_bytes"] = memory["peak_bytes"];
  record["notes"] = Json::array(
      {"read off the forward and backward graphs PyTorch logged: bytes from their annotations, "
       "lifetimes from their `= None` deletions; no budget sweep (that takes remat's "
       "partitioner: `remat report` on the joint graph file runs it)"});
  record["charts"] = {{"memory", Json::array({memory})}};
  if (joint) record["charts"]["regions"] = region_map(*joint, marks);
  return record;
}

}  // namespace remat::report
