// remat info FILE: what a graph (or flow / partition file) holds, at a glance.
#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "remat/cli/commands.h"
#include "remat/io/fxgraph_file.h"
#include "remat/ir/graph_stats.h"
#include "remat/print/readable_parser.h"
#include "remat/support/file_io.h"

namespace remat::cli {
namespace {

std::string describe_value(const Node& n) {
  if (const TensorMeta* t = n.meta.tensor()) {
    std::string dims = join_dims(t->sizes());
    std::string_view abbr = dtype_abbr(t->dtype);
    return fmt::format("{}[{}]", abbr.empty() ? dtype_name(t->dtype) : abbr, dims);
  }
  return "";
}

void print_graph(const GraphModule& m, const std::string& file, std::string_view format) {
  GraphStats s = compute_stats(m);
  std::string name = m.graph_name.empty() ? m.class_name : m.graph_name;
  fmt::print("{}: graph{} ({})\n", file, name.empty() ? "" : " '" + name + "'", format);
  fmt::print("nodes: {}\n", s.num_nodes);
  for (size_t k = 0; k < s.by_op_kind.size(); ++k)
    if (s.by_op_kind[k] > 0)
      fmt::print("  {:<14} {:>8}\n", op_kind_name(static_cast<OpKind>(k)), s.by_op_kind[k]);
  if (!s.by_target.empty()) {
    fmt::print("targets: {} distinct\n", s.by_target.size());
    size_t width = 0;
    for (const auto& [t, c] : s.by_target) width = std::max(width, t.size());
    for (const auto& [t, c] : s.by_target) fmt::print("  {:<{}} {:>8}\n", t, width, c);
  }
  fmt::print("placeholders: {}\n", s.placeholders.size());
  for (const std::string& p : s.placeholders) {
    std::string v = describe_value(*m.graph().find(p));
    fmt::print("  {}{}\n", p, v.empty() ? "" : "  " + v);
  }
  fmt::print("outputs: {}\n", s.outputs.size());
  for (size_t i = 0; i < s.outputs.size(); ++i) {
    std::string tag;
    if (m.num_fwd_outputs)
      tag = static_cast<int64_t>(i) < *m.num_fwd_outputs ? "  (forward)" : "  (gradient)";
    if (m.num_real_outputs && static_cast<int64_t>(i) >= *m.num_real_outputs) tag = "  (saved)";
    fmt::print("  {}{}\n", s.outputs[i], tag);
  }
  fmt::print("tensor bytes: {} over all node values", s.tensor_bytes);
  if (s.nodes_without_tensor_meta > 0)
    fmt::print(" ({} node(s) without static tensor metadata)", s.nodes_without_tensor_meta);
  fmt::print("\n");
  if (s.num_submodules > 0) {
    fmt::print("submodules: {}\n", s.num_submodules);
    for (const Submodule& sub : m.submodules)
      fmt::print("  {} ({} nodes)\n", sub.name, sub.module->graph().size());
  }
}

void print_flow(const FlowNetwork& f, const std::string& file) {
  fmt::print("{}: flow network ({})\n", file, kFlowSchema);
  fmt::print("vertices: {}\nedges: {}\n", f.nodes.size(), f.edges.size());
  size_t infinite = 0;
  for (const FlowEdge& e : f.edges) infinite += std::isinf(e.capacity) ? 1 : 0;
  fmt::print("infinite edges: {}\n", infinite);
  if (f.cut_value) {
    if (std::isinf(*f.cut_value))
      fmt::print("cut value: inf\n");
    else
      fmt::print("cut value: {}\n", *f.cut_value);
  }
  fmt::print("cut edges: {}\n", f.cut_edges.size());
  for (const auto& [a, b] : f.cut_edges) fmt::print("  {} -> {}\n", a, b);
}

void print_partition(const PartitionSummary& p, const std::string& file) {
  fmt::print("{}: partition summary ({})\n", file, kPartitionSchema);
  if (!p.model.empty()) fmt::print("model: {}\n", p.model);
  for (const StrategySummary& s : p.strategies) {
    fmt::print("{}: {} saved value(s)", s.strategy, s.saved_values.size());
    if (s.saved_bytes_total) fmt::print(", {} bytes", *s.saved_bytes_total);
    fmt::print(", {} recomputed\n", s.recomputed_in_bw.size());
    fmt::print("  saved: {}\n", fmt::join(s.saved_values, ", "));
    if (!s.recomputed_in_bw.empty())
      fmt::print("  recomputed: {}\n", fmt::join(s.recomputed_in_bw, ", "));
  }
}

}  // namespace

void add_info_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "info",
      "Summarize a graph file (fxgraph-json or readable text): node counts by op "
      "kind and target, placeholders, outputs, tensor bytes; also flow-network "
      "and partition files.");
  auto file = std::make_shared<std::string>();
  cmd->add_option("file", *file, "graph file (fxgraph-json or readable text), or - for stdin")
      ->required();
  cmd->callback([file, &exit_code] {
    Expected<std::string> text = read_file(*file);
    if (!text) {
      exit_code = report(text.errors());
      return;
    }
    std::string name = display_name(*file);
    if (looks_like_readable(*text)) {
      Expected<GraphModule> m = parse_readable(*text, name);
      if (!m) {
        exit_code = report(m.errors());
        return;
      }
      print_graph(*m, name, "readable text");
      exit_code = kExitOk;
      return;
    }
    Expected<FxgraphDocument> doc = read_fxgraph(*text, name);
    if (!doc) {
      exit_code = report(doc.errors());
      return;
    }
    if (const auto* g = std::get_if<GraphModule>(&*doc))
      print_graph(*g, name, kGraphSchema);
    else if (const auto* f = std::get_if<FlowNetwork>(&*doc))
      print_flow(*f, name);
    else
      print_partition(std::get<PartitionSummary>(*doc), name);
    exit_code = kExitOk;
  });
}

}  // namespace remat::cli
