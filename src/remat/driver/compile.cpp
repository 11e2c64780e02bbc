#include "remat/driver/compile.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "remat/autodiff/joint_graph.h"
#include "remat/driver/aot_records.h"
#include "remat/driver/check_run.h"
#include "remat/fxtext/traceback.h"
#include "remat/io/graph_json.h"
#include "remat/ir/graph.h"
#include "remat/print/printer.h"
#include "remat/report/html.h"
#include "remat/support/file_io.h"
#include "remat/support/json_writer.h"
#include "remat/tracelog/trace_writer.h"

namespace remat::driver {
namespace {

namespace fs = std::filesystem;

// The stack of a log record from a node's Python-style traceback.
std::vector<tracelog::StackFrame> frames_of(std::string_view traceback) {
  std::vector<tracelog::StackFrame> out;
  for (const fxtext::TracebackFrame& f : fxtext::parse_traceback(traceback)) {
    out.push_back(
        {std::string(f.file), std::atoll(std::string(f.line).c_str()), std::string(f.function)});
  }
  return out;
}

size_t count_ops(const GraphModule& m) {
  size_t n = 0;
  for (const Node* node : m.graph().nodes()) n += node->op() == OpKind::CallFunction;
  return n;
}

/// Milliseconds as seconds, to the microsecond (as a timer reads, without binary noise digits).
double seconds(double ms) {
  return std::round(ms * 1000) / 1e6;
}

// The compilation_metrics record: sizes, each stage's time, the partition's numbers.
std::string metrics_json(const CompileOptions& o, const CompileResult& r,
                         const std::string& check) {
  const GraphModule& forward = r.forward;
  const partition::PartitionReport& p = r.partition.report;
  std::string metrics;
  json::JsonWriter w(metrics);
  w.begin_object()
      .field("co_name", o.model)
      .field("co_filename", "remat model zoo")
      .field("co_firstlineno", 0)
      .field("graph_op_count", static_cast<int64_t>(count_ops(forward)))
      .field("graph_node_count", static_cast<int64_t>(forward.graph().size()))
      .field("graph_input_count", static_cast<int64_t>(forward.graph().placeholders().size()));
  double total_ms = 0, backend_ms = 0;
  for (const StageTime& s : r.stages) {
    total_ms += s.ms;
    if (s.name != "trace") backend_ms += s.ms;
    w.field("remat_" + s.key() + "_time_s", seconds(s.ms));
  }
  w.field("entire_frame_compile_time_s", seconds(total_ms))
      .field("backend_compile_time_s", seconds(backend_ms));
  for (const StageTime& s : r.partition.stages)
    w.field("remat_partition_" + s.key() + "_time_s", seconds(s.ms));
  w.field("remat_saved_bytes", p.saved_bytes_total)
      .field("remat_activation_bytes", p.activation_bytes.value_or(0))
      .field("remat_recomputed_nodes", static_cast<int64_t>(p.recomputed.size()))
      .field("remat_peak_memory_bytes", p.peak_memory_bytes)
      .field("remat_numeric_check", check)
      .end_object();
  return metrics;
}

}  // namespace

/// As torch.fx, `remat info` and the report's pages count them: the output node too.
std::string node_counts(const GraphModule& m) {
  size_t inputs = m.graph().placeholders().size(), ops = count_ops(m);
  return fmt::format("{} nodes: {} inputs, {} ops, the output", m.graph().size(), inputs, ops);
}

Expected<CompileResult> compile(const CompileOptions& o) {
  const models::ModelInfo* model = models::find_model(o.model);
  if (!model) return error_message("compile: no model '" + o.model + "' in the zoo");
  if (o.strategy != partition::Strategy::MinCut && o.log_passes)
    return error_message("compile: logging the passes applies to the min-cut partition");
  CompileResult r;
  StageTimer timer;
  auto stage = [&](const char* name, std::string_view detail) {
    timer.lap(name);
    if (o.progress) o.progress(name, detail, timer.stages().back().ms);
  };

  Expected<GraphModule> forward = model->trace(o.model_options);
  REMAT_TRY(forward);
  r.forward = std::move(*forward);
  stage("trace", node_counts(r.forward));
  Expected<GraphModule> joint = autodiff::build_joint_graph(r.forward);
  REMAT_TRY(joint);
  r.joint = std::move(*joint);
  stage("joint graph", node_counts(r.joint));

  partition::MinCutConfig config = o.config;
  std::vector<std::pair<std::string, std::string>> pass_graphs;  // (pass, readable text)
  if (o.log_passes) {
    config.passes.after_each = [&](const passes::PassRun& run, std::string_view,
                                   const GraphModule& m) {
      if (run.result.changed)
        pass_graphs.emplace_back(run.name, print_readable(m, PrintOptions::tlparse()).text);
    };
  }
  Expected<partition::Partition> p = partition::partition_joint(r.joint, o.strategy, config);
  REMAT_TRY(p);
  r.partition = std::move(*p);
  const partition::PartitionReport& preport = r.partition.report;
  const ForwardBackward& graphs = r.partition.graphs;
  stage(
      "partition",
      fmt::format("{}: {} saved ({}), {} recomputed", preport.strategy, preport.saved_values.size(),
                  report::human_bytes(static_cast<uint64_t>(preport.saved_bytes_total)),
                  preport.recomputed.size()));
  if (o.charts) {
    auto charts =
        partition::chart_partition(r.joint, r.partition, o.strategy, config, o.chart_options);
    REMAT_TRY(charts);
    r.partition.report.charts = std::move(*charts);
    const partition::PartitionCharts& c = *r.partition.report.charts;
    stage("charts", fmt::format("{} memory curves, {} budgets", c.memory.size(), c.budget.size()));
  }

  // The graphs, as files: remat-check (the executable that links libtorch) reads them, and
  // they stay for `remat check` / `remat partition` by hand; without a check, only when asked.
  fs::path out(o.out_dir), graphs_dir = out / "graphs";
  if (!o.check_executable.empty() || o.graph_files) {
    REMAT_TRY(make_folder(graphs_dir.string()));
    for (const auto& [name, m] :
         {std::pair<const char*, const GraphModule*>{"joint.json", &r.joint},
          {"forward.json", &graphs.forward},
          {"backward.json", &graphs.backward}}) {
      REMAT_TRY(write_file_atomic((graphs_dir / name).string(), write_graph_json(*m)));
    }
    r.graphs_dir = graphs_dir.string();
    stage("graph files",
          fmt::format("{}: joint, forward, backward (fxgraph-json)", graphs_dir.string()));
  }

  r.check.summary = o.check_skipped;
  if (!o.check_executable.empty()) {
    Expected<CheckOutcome> check =
        run_check(o.check_executable, (graphs_dir / "joint.json").string(),
                  (graphs_dir / "forward.json").string(), (graphs_dir / "backward.json").string(),
                  (graphs_dir / "check.json").string());
    REMAT_TRY(check);
    r.check.ran = true;
    r.check.ok = check->ok;
    r.check.values = check->values;
    r.check.max_abs_error = check->max_abs_error;
    r.check.details = std::move(check->text);
    r.check.summary = fmt::format("{} values, max abs error {:.3g}{}", check->values,
                                  check->max_abs_error, check->ok ? "" : " - BEYOND TOLERANCE");
    stage("numeric check", r.check.summary);
    if (r.partition.report.charts && !check->memory.empty())
      r.partition.report.charts->memory.push_back(measured_curve(graphs, check->memory));
  }

  // The log, with the events PyTorch writes for one compile.
  fs::path trace_dir = out / "trace";
  std::error_code ec;
  if (fs::is_directory(trace_dir, ec)) {
    for (const auto& entry : fs::directory_iterator(trace_dir, ec)) {
      if (entry.path().filename().string().starts_with("dedicated_log_torch_trace_"))
        fs::remove(entry.path(), ec);
    }
  }
  auto writer = tracelog::TraceWriter::create(trace_dir.string());
  REMAT_TRY(writer);
  tracelog::TraceWriter& w = **writer;
  w.set_source("remat/driver/compile.cpp", __LINE__);
  tracelog::CompileId id{std::nullopt, 0, 0, 0};
  std::vector<tracelog::StackFrame> stack;
  for (const Node* n : r.forward.graph().nodes()) {
    if (n->op() == OpKind::CallFunction && !n->meta.stack_trace.view().empty()) {
      stack = frames_of(n->meta.stack_trace.view());
      break;
    }
  }
  std::string start;
  json::JsonWriter(start).begin_object().key("stack").raw(w.stack_json(stack)).end_object();
  w.write("dynamo_start", start, id);
  PrintOptions logged = PrintOptions::tlparse();
  logged.expanded_def = false;
  w.write("dynamo_output_graph", "{}", id, print_readable(r.forward, logged).text);
  write_aot_records(w, id, r.joint, graphs.forward, graphs.backward, &preport);
  for (const auto& [pass, text] : pass_graphs)
    w.artifact("remat_pass_" + StageTime{pass}.key(), "string", id, text);
  r.stages = timer.stages();  // the metrics time the stages up to here
  w.write("compilation_metrics", metrics_json(o, r, r.check.summary), id);
  Expected<std::string> log = w.close();
  REMAT_TRY(log);
  r.log_path = *log;
  stage("log", fmt::format("{} ({})", fs::path(r.log_path).filename().string(),
                           report::human_bytes(fs::file_size(r.log_path, ec))));

  r.report_dir = (out / "report").string();
  report::ReportOptions report_options =
      o.report_options ? o.report_options(r.log_path) : report::ReportOptions{};
  auto result = report::write_report_folder(r.log_path, r.report_dir, report_options,
                                            /*overwrite=*/true, /*strict=*/true);
  REMAT_TRY(result);
  r.report_records = result->stats.ok;
  r.report_artifacts = result->artifacts;
  stage("report", fmt::format("{} records, {} artifacts", result->stats.ok, result->artifacts));
  r.stages = timer.stages();
  return r;
}

}  // namespace remat::driver
