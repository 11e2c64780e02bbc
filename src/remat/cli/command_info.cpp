// remat info FILE: what a graph (or flow / partition file) holds, at a glance.
#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include <map>
#include <set>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/driver/check_run.h"
#include "remat/io/fxgraph_file.h"
#include "remat/ir/graph_stats.h"
#include "remat/print/readable_parser.h"
#include "remat/print/round_trip.h"
#include "remat/records/partition_diff.h"
#include "remat/support/file_io.h"
#include "remat/tracelog/glog_header.h"
#include "remat/tracelog/trace_reader.h"

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

// A partition record as remat partition and remat compile write it (report.json,
// remat_partition_N.json).
void print_partition_record(const records::PartitionRecord& r, const std::string& file) {
  fmt::print("{}: partition report ({})\n", file, records::kPartitionRecordSchema);
  fmt::print("strategy: {} (chosen by: {})\n", r.strategy, r.stage);
  records::PartitionTotals totals = records::totals_of(r);
  fmt::print("saved: {} values, {} bytes", r.saved_values.size(), r.saved_bytes_total);
  if (r.activation_bytes)
    fmt::print(" ({} bytes of activation memory beyond the inputs)", *r.activation_bytes);
  fmt::print("\n");
  if (r.inputs_marked)
    fmt::print("  {} activations, {} inputs the backward reads anyway\n", totals.activations,
               totals.inputs);
  fmt::print("recomputed in the backward: {} nodes", r.recomputed.size());
  if (r.recompute_flops) fmt::print(", {} FLOPs", *r.recompute_flops);
  fmt::print("\npeak memory estimate: {} bytes\n", r.peak_memory_bytes);
  if (r.cut_value) fmt::print("cut value: {}\n", *r.cut_value);
  if (!r.banned.empty()) fmt::print("banned from recomputation: {} nodes\n", r.banned.size());
  for (const std::string& n : r.notes) fmt::print("note: {}\n", n);
}

// A TORCH_TRACE log: its records by event and its compile ids.
void print_trace_log(const std::string& path, const std::string& file) {
  auto reader = tracelog::TraceReader::open(path);
  if (!reader) return;
  std::map<std::string, size_t> events;
  std::set<std::string> compile_ids;
  // Every graph the log holds is read and printed back: what remat cannot read is named.
  size_t graphs = 0;
  std::vector<std::string> graph_problems;
  tracelog::TraceRecord r;
  while ((*reader)->next(r)) {
    ++events[r.event.empty() ? "(no event)" : r.event];
    if (r.compile_id) compile_ids.insert(r.compile_id->normalized().display());
    if (tracelog::holds_printed_graph(r)) {
      ++graphs;
      std::string where = fmt::format("{}:{} ({})", file, r.lineno, r.event);
      if (std::string problem = round_trip_problem(r.payload, where); !problem.empty())
        graph_problems.push_back(std::move(problem));
    }
  }
  fmt::print("{}: TORCH_TRACE log\n", file);
  fmt::print("records: {}\n", (*reader)->stats().describe());
  fmt::print(
      "compile ids: {}{}\n", compile_ids.size(),
      compile_ids.empty() ? "" : " (" + fmt::format("{}", fmt::join(compile_ids, ", ")) + ")");
  fmt::print("events:\n");
  for (const auto& [e, n] : events) fmt::print("  {:<32} {:>8}\n", e, n);
  fmt::print("graphs: {}, {} read and printed back byte for byte\n", graphs,
             graphs - graph_problems.size());
  for (const std::string& p : graph_problems) fmt::print("  {}\n", p);
}

struct InfoArgs {
  std::string file;
};

Expected<int> run_info(const InfoArgs& a) {
  Expected<std::string> text =
      read_input(a.file, "a graph, a flow network, a partition file or a TORCH_TRACE log");
  REMAT_TRY(text);
  std::string name = display_name(a.file);
  // A log's first line is a glog header (its payloads hold graph text: ask before the parser).
  if (a.file != "-" &&
      tracelog::has_glog_line(std::string_view(*text).substr(0, text->find('\n')))) {
    print_trace_log(a.file, name);
    return kExitOk;
  }
  if (looks_like_readable(*text)) {
    Expected<GraphModule> m = read_graph(*text, name, BadTargets::Warn);
    REMAT_TRY(m);
    print_graph(*m, name, "readable text");
    return kExitOk;
  }
  if (size_t first = text->find_first_not_of(" \t\r\n");
      first != std::string::npos && (*text)[first] == '{') {
    Expected<std::string> schema = read_json_schema(*text, name);
    if (schema && *schema == records::kPartitionRecordSchema) {
      Expected<records::PartitionRecord> record = records::read_partition_record(*text, name);
      REMAT_TRY(record);
      print_partition_record(*record, name);
      return kExitOk;
    }
    // The result file of `remat check --result` (remat compile's graphs/check.json): no schema.
    if (schema && schema->empty()) {
      if (auto check = driver::read_check_result(*text, name)) {
        fmt::print("{}: numeric check result (remat check --result)\n", name);
        fmt::print("values compared: {}, beyond tolerance: {}\n", check->values,
                   check->beyond_tolerance);
        fmt::print("max abs error: {:.3g}, max rel error: {:.3g}\n", check->max_abs_error,
                   check->max_rel_error);
        return kExitOk;
      }
    }
  }
  Expected<FxgraphDocument> doc = read_fxgraph(*text, name);
  REMAT_TRY(doc);
  if (const auto* g = std::get_if<GraphModule>(&*doc)) {
    std::fputs(format_all(target_diagnostics(*g, *text, name, /*warning=*/true)).c_str(), stderr);
    print_graph(*g, name, kGraphSchema);
  } else if (const auto* f = std::get_if<FlowNetwork>(&*doc))
    print_flow(*f, name);
  else
    print_partition(std::get<PartitionSummary>(*doc), name);
  return kExitOk;
}

}  // namespace

void add_info_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "info",
      "Summarize a graph file (fxgraph-json or readable text): node counts by op "
      "kind and target, placeholders, outputs, tensor bytes; also every other file remat "
      "writes: flow networks, partition summaries, partition reports, TORCH_TRACE logs.");
  auto a = std::make_shared<InfoArgs>();
  cmd->add_option("file", a->file, "graph file (fxgraph-json or readable text), or - for stdin")
      ->required();
  run_verb(*cmd, a, exit_code, &run_info);
}

}  // namespace remat::cli
