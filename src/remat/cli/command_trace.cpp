// remat trace --model NAME ...: traces a zoo model into its forward graph.
#include <fmt/format.h>

#include "remat/autodiff/joint_graph.h"
#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/cli/model_flags.h"
#include "remat/io/graph_json.h"
#include "remat/models/model_zoo.h"
#include "remat/print/printer.h"
#include "remat/support/file_io.h"

namespace remat::cli {
namespace {

std::string model_list() {
  std::string out = "models (each with the options it reads, at their defaults):\n";
  const ModelFlags defaults;
  for (const models::ModelInfo& m : models::all_models()) {
    out += fmt::format("  {:<9} {}\n", m.name, m.description);
    std::string described = defaults.describe(m);
    out += fmt::format("  {:<9} {}\n", "", described.substr(m.name.size() + 1));
  }
  out += "policies (--policy):\n";
  for (std::string_view p : models::policy_names()) out += fmt::format("  {}\n", p);
  return out;
}

struct TraceArgs {
  std::string output = "-";
  bool list = false, joint = false;
  ModelFlags model;
  PrintFlags flags;
};

Expected<int> run_trace(const TraceArgs& a) {
  if (a.list) {
    fmt::print("{}", model_list());
    return kExitOk;
  }
  auto model = a.model.resolve("trace");
  REMAT_TRY(model);
  Expected<GraphModule> m = model->info->trace(model->options);
  if (m && a.joint) m = autodiff::build_joint_graph(*m);
  REMAT_TRY(m);
  std::string text = a.output.ends_with(".json")
                         ? write_graph_json(*m)
                         : print_readable(*m, a.flags.options(*m)).text + "\n";
  Status written = write_file_atomic(a.output, text);
  REMAT_TRY(written);
  return kExitOk;
}

}  // namespace

void add_trace_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "trace",
      "Trace a model of the zoo into its forward graph of ATen ops, with checkpoint regions "
      "(recompute and ac_graph_id tags) and stack traces. Prints readable text, or writes FILE "
      "(.json: fxgraph-json; otherwise text); --joint gives the joint forward+backward graph. "
      "--list shows the models and their options.");
  auto a = std::make_shared<TraceArgs>();
  cmd->add_flag("--list", a->list, "list the models, their options and the policies");
  cmd->add_flag("--joint", a->joint,
                "write the joint forward+backward graph, as AOTAutograd builds it");
  cmd->add_option("-o,--output", a->output,
                  "output file (.json for fxgraph-json), or - for stdout");
  a->model.add_to(*cmd);
  a->flags.add_to(*cmd);
  run_verb(*cmd, a, exit_code, &run_trace);
}

}  // namespace remat::cli
