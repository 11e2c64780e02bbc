// remat compile --model NAME ... -o OUT: the main job. Trace, joint graph, partition, numeric
// check, then the TORCH_TRACE log PyTorch would write for that compile (OUT/trace/) and its
// report (OUT/report/).
#include <fmt/format.h>

#include <filesystem>

#include "remat/autodiff/joint_graph.h"
#include "remat/cli/aot_records.h"
#include "remat/cli/check_helper.h"
#include "remat/cli/commands.h"
#include "remat/cli/model_flags.h"
#include "remat/cli/report_options.h"
#include "remat/io/graph_json.h"
#include "remat/ir/graph.h"
#include "remat/ir/traceback.h"
#include "remat/partition/partition_joint.h"
#include "remat/print/printer.h"
#include "remat/report/html.h"
#include "remat/support/file_io.h"
#include "remat/support/json_text.h"
#include "remat/support/stage_timer.h"
#include "remat/tracelog/trace_writer.h"

namespace remat::cli {
namespace {

namespace fs = std::filesystem;

// The stack of a log record from a node's Python-style traceback.
std::vector<tracelog::StackFrame> frames_of(std::string_view traceback) {
  std::vector<tracelog::StackFrame> out;
  for (const TracebackFrame& f : parse_traceback(traceback)) {
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

// "628 nodes: 30 inputs, 598 ops": the values a graph defines (the output node is none), counted
// as the report's graph pages count them.
std::string node_counts(const GraphModule& m) {
  size_t inputs = m.graph().placeholders().size(), ops = count_ops(m);
  return fmt::format("{} nodes: {} inputs, {} ops", inputs + ops, inputs, ops);
}

void stage_line(std::string_view what, std::string_view detail, double ms) {
  std::fprintf(stderr, "  %-12s %-64s %9.1f ms\n", std::string(what).c_str(),
               std::string(detail).c_str(), ms);
}

}  // namespace

void add_compile_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "compile",
      "The main job: trace a zoo model, build its joint graph, partition it, check the partition's "
      "numbers through libtorch, then write the TORCH_TRACE log PyTorch would write for that "
      "compile "
      "(OUT/trace/) and its HTML report (OUT/report/index.html). Exit 1 if the check fails.");
  struct Args {
    ModelFlags model;
    std::string out, strategy = "min-cut";
    double budget = 1.0;
    bool no_check = false, log_passes = false;
  };
  auto a = std::make_shared<Args>();
  a->model.add_to(*cmd);
  cmd->add_option("--strategy", a->strategy, "min-cut (default) or default")
      ->check(CLI::IsMember({"min-cut", "default"}));
  auto* budget =
      cmd->add_option("--budget", a->budget, "activation memory budget in [0, 1] (min-cut)")
          ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--no-check", a->no_check, "skip the numeric check through libtorch");
  auto* log_passes = cmd->add_flag("--log-passes", a->log_passes,
                                   "log the joint graph after each partitioner pass that changed "
                                   "it (artifacts remat_pass_NAME)");
  cmd->add_option("-o,--output", a->out, "output folder: trace/ and report/ go in it")->required();
  cmd->callback([a, budget, log_passes, &exit_code] {
    if (Status s = refuse_min_cut_options(a->strategy, {budget, log_passes}); !s) {
      exit_code = report(s.errors());
      return;
    }
    auto model = a->model.resolve("compile");
    if (!model) {
      exit_code = report(model.errors());
      return;
    }
    std::fprintf(stderr, "remat compile: %s, %s\n", a->model.describe(**model).c_str(),
                 a->strategy.c_str());
    StageTimer timer;
    auto lap = [&](const char* name) {
      timer.lap(name);
      return timer.stages().back().ms;
    };
    Expected<GraphModule> forward = (*model)->trace(a->model.options);
    if (!forward) {
      exit_code = report(forward.errors());
      return;
    }
    stage_line("trace", node_counts(*forward), lap("trace"));
    Expected<GraphModule> joint = autodiff::build_joint_graph(*forward);
    if (!joint) {
      exit_code = report(joint.errors());
      return;
    }
    stage_line("joint graph", node_counts(*joint), lap("joint graph"));

    partition::MinCutConfig config;
    config.memory_budget = a->budget;
    std::vector<std::pair<std::string, std::string>> pass_graphs;  // (pass, readable text)
    if (a->log_passes) {
      config.passes.dump = [&](std::string_view pass, const GraphModule& m) {
        pass_graphs.emplace_back(pass, print_readable(m, PrintOptions::tlparse()).text);
      };
    }
    auto p = partition::partition_joint(*joint, *partition::parse_strategy(a->strategy), config);
    if (!p) {
      exit_code = report(p.errors());
      return;
    }
    partition::ForwardBackward& graphs = p->graphs;
    const partition::PartitionReport& preport = p->report;
    const std::vector<StageTime>& passes = p->stages;
    stage_line("partition",
               fmt::format("{}: {} saved ({}), {} recomputed", preport.strategy,
                           preport.saved_values.size(),
                           report::human_bytes(static_cast<uint64_t>(preport.saved_bytes_total)),
                           preport.recomputed.size()),
               lap("partition"));

    // The graphs, as files: remat-check (the executable that links libtorch) reads them, and
    // they stay for `remat check` / `remat partition` by hand.
    fs::path out(a->out), graphs_dir = out / "graphs";
    std::error_code ec;
    if (Status s = make_folder(graphs_dir.string()); !s) {
      exit_code = report(s.errors());
      return;
    }
    for (const auto& [name, m] : {std::pair<const char*, const GraphModule*>{"joint.json", &*joint},
                                  {"forward.json", &graphs.forward},
                                  {"backward.json", &graphs.backward}}) {
      Status s = write_file_atomic((graphs_dir / name).string(), write_graph_json(*m));
      if (!s) {
        exit_code = report(s.errors());
        return;
      }
    }
    stage_line("graph files",
               fmt::format("{}: joint, forward, backward (fxgraph-json)", graphs_dir.string()),
               lap("graph files"));
    bool check_ok = true;
    std::string check_summary = "skipped";
#ifdef REMAT_WITH_TORCH
    if (!a->no_check) {
      HelperRun check = run_check_helper({(graphs_dir / "joint.json").string(), "--fw",
                                          (graphs_dir / "forward.json").string(), "--bw",
                                          (graphs_dir / "backward.json").string()});
      if (check.exit_code != kExitOk && check.exit_code != kExitCheckFailed) {
        exit_code = report({error_message(
            "compile: the numeric check (remat-check) did not run" +
            (check.exit_code < 0 ? std::string(": remat-check is not beside remat") : ""))});
        return;
      }
      // `ok   what: max abs 1e-07, max rel ...` per value, then `check: N values compared, M beyond
      // tolerance`.
      double worst = 0;
      size_t values = 0;
      for (size_t at = check.out.find("max abs "); at != std::string::npos;
           at = check.out.find("max abs ", at + 1)) {
        worst = std::max(worst, std::atof(check.out.c_str() + at + 8));
        ++values;
      }
      check_ok = check.exit_code == kExitOk;
      check_summary = fmt::format("{} values, max abs error {:.3g}{}", values, worst,
                                  check_ok ? "" : " - BEYOND TOLERANCE");
      stage_line("check", check_summary, lap("numeric check"));
      if (!check_ok) std::fputs(check.out.c_str(), stderr);
    }
#else
    check_summary = "skipped (built without libtorch)";
#endif

    // The log, with the events PyTorch writes for one compile.
    fs::path trace_dir = out / "trace";
    if (fs::is_directory(trace_dir, ec)) {
      for (const auto& entry : fs::directory_iterator(trace_dir, ec)) {
        if (entry.path().filename().string().starts_with("dedicated_log_torch_trace_"))
          fs::remove(entry.path(), ec);
      }
    }
    auto writer = tracelog::TraceWriter::create(trace_dir.string());
    if (!writer) {
      exit_code = report(writer.errors());
      return;
    }
    tracelog::TraceWriter& w = **writer;
    w.set_source("remat/cli/command_compile.cpp", __LINE__);
    tracelog::CompileId id{std::nullopt, 0, 0, 0};
    std::vector<tracelog::StackFrame> stack;
    for (const Node* n : forward->graph().nodes()) {
      if (n->op() == OpKind::CallFunction && !n->meta.stack_trace.view().empty()) {
        stack = frames_of(n->meta.stack_trace.view());
        break;
      }
    }
    w.write("dynamo_start", "{\"stack\": " + w.stack_json(stack) + "}", id);
    PrintOptions logged = PrintOptions::tlparse();
    logged.expanded_def = false;
    w.write("dynamo_output_graph", "{}", id, print_readable(*forward, logged).text);
    write_aot_records(w, id, *joint, graphs.forward, graphs.backward, &preport);
    for (const auto& [pass, text] : pass_graphs)
      w.artifact("remat_pass_" + StageTime{pass}.key(), "string", id, text);
    std::string metrics = "{\"co_name\": " + json::quoted(a->model.model) +
                          ", \"co_filename\": \"remat model zoo\", \"co_firstlineno\": 0";
    metrics += fmt::format(
        ", \"graph_op_count\": {}, \"graph_node_count\": {}, \"graph_input_count\": {}",
        count_ops(*forward), forward->graph().size(), forward->graph().placeholders().size());
    double total_ms = 0, backend_ms = 0;
    for (const StageTime& s : timer.stages()) {
      total_ms += s.ms;
      if (s.name != "trace") backend_ms += s.ms;
      metrics += fmt::format(", \"remat_{}_time_s\": {:.6f}", s.key(), s.ms / 1000);
    }
    metrics +=
        fmt::format(", \"entire_frame_compile_time_s\": {:.6f}, \"backend_compile_time_s\": {:.6f}",
                    total_ms / 1000, backend_ms / 1000);
    for (const StageTime& s : passes)
      metrics += fmt::format(", \"remat_partition_{}_time_s\": {:.6f}", s.key(), s.ms / 1000);
    metrics += fmt::format(
        ", \"remat_saved_bytes\": {}, \"remat_activation_bytes\": {}, \"remat_recomputed_nodes\": "
        "{}, \"remat_peak_memory_bytes\": {}",
        preport.saved_bytes_total, preport.activation_bytes, preport.recomputed.size(),
        preport.peak_memory_bytes);
    metrics += ", \"remat_numeric_check\": " + json::quoted(check_summary) + "}";
    w.write("compilation_metrics", metrics, id);
    auto log = w.close();
    if (!log) {
      exit_code = report(log.errors());
      return;
    }
    stage_line("log",
               fmt::format("{} ({})", fs::path(*log).filename().string(),
                           report::human_bytes(fs::file_size(*log, ec))),
               lap("log"));

    fs::path report_dir = out / "report";
    auto result = report::write_report_folder(
        *log, report_dir.string(), report_options_for(*log, app_command_line()), /*overwrite=*/true,
        /*strict=*/true);
    if (!result) {
      exit_code = report(result.errors());
      return;
    }
    stage_line("report",
               fmt::format("{} records, {} artifacts", result->stats.ok, result->artifacts),
               lap("report"));

    fmt::print("{}: forward graph {}; joint graph {}\n", a->model.model, node_counts(*forward),
               node_counts(*joint));
    fmt::print("saved: {} values, {} ({} activation memory beyond the inputs)\n",
               preport.saved_values.size(),
               report::human_bytes(static_cast<uint64_t>(preport.saved_bytes_total)),
               report::human_bytes(static_cast<uint64_t>(preport.activation_bytes)));
    fmt::print("recomputed in the backward: {} ops, {}\n", preport.recomputed.size(),
               report::human_flops(static_cast<uint64_t>(preport.recompute_flops)));
    fmt::print("peak memory estimate (forward, then backward): {}\n",
               report::human_bytes(static_cast<uint64_t>(preport.peak_memory_bytes)));
    fmt::print("numeric check: {}\n", check_summary);
    fmt::print("log: {}\nreport: {}/index.html\n", *log, report_dir.string());
    exit_code = check_ok ? kExitOk : kExitCheckFailed;
  });
}

}  // namespace remat::cli
