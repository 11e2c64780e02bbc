// remat trace --model NAME ...: traces a zoo model into its forward graph.
#include <fmt/format.h>

#include "remat/autodiff/joint_graph.h"
#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/io/graph_json.h"
#include "remat/models/model_zoo.h"
#include "remat/print/printer.h"
#include "remat/support/file_io.h"

namespace remat::cli {
namespace {

std::string model_list() {
  std::string out = "models:\n";
  for (const models::ModelInfo& m : models::all_models()) {
    out += fmt::format("  {:<9} {}\n", m.name, m.description);
    std::string opts;
    for (std::string_view o : m.options) {
      std::string flag(o);
      std::replace(flag.begin(), flag.end(), '_', '-');
      opts += (opts.empty() ? "" : " ") + ("--" + flag);
    }
    out += fmt::format("  {:<9} options: {}\n", "", opts);
  }
  out += "policies (--policy):\n";
  for (std::string_view p : models::policy_names()) out += fmt::format("  {}\n", p);
  return out;
}

}  // namespace

void add_trace_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "trace",
      "Trace a model of the zoo into its forward graph of ATen ops, with checkpoint regions "
      "(recompute and ac_graph_id tags) and stack traces. Prints readable text, or writes FILE "
      "(.json: fxgraph-json; otherwise text); --joint gives the joint forward+backward graph. "
      "--list shows the models and their options.");
  struct Args {
    std::string model, output = "-", checkpoint = "none";
    bool list = false, joint = false;
    models::ModelOptions options;
    PrintFlags flags;
  };
  auto a = std::make_shared<Args>();
  models::ModelOptions& o = a->options;
  cmd->add_flag("--list", a->list, "list the models, their options and the policies");
  cmd->add_option("--model", a->model, "the model to trace");
  cmd->add_flag("--joint", a->joint, "write the joint forward+backward graph, as AOTAutograd builds it");
  cmd->add_option("-o,--output", a->output, "output file (.json for fxgraph-json), or - for stdout");
  cmd->add_option("--layers", o.layers, "number of layers / blocks")->check(CLI::Range(1, 4096));
  cmd->add_option("--checkpoint", a->checkpoint, "none, each-layer or every:K");
  cmd->add_option("--policy", o.policy, "selective-checkpointing policy for the regions (see --list)");
  cmd->add_option("--batch", o.batch, "batch size")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--seq", o.seq, "sequence length")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--hidden", o.hidden, "hidden width / channels")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--heads", o.heads, "attention heads")->check(CLI::Range(1, 4096));
  cmd->add_option("--vocab", o.vocab, "vocabulary size / classes")->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--image", o.image, "image side in pixels")->check(CLI::Range(1, 1 << 14));
  cmd->add_option("--activation", o.activation, "relu or gelu (mlp)")->check(CLI::IsMember({"relu", "gelu"}));
  cmd->add_flag("--layer-norm", o.layer_norm, "layer norm after each activation (mlp)");
  cmd->add_option("--dropout", o.dropout, "dropout probability, training mode (gpt2)")->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--device", o.device, "device recorded in tensor metadata (cpu, cuda:0, ...)");
  a->flags.add_to(*cmd);
  cmd->callback([a, &exit_code] {
    if (a->list) {
      fmt::print("{}", model_list());
      exit_code = kExitOk;
      return;
    }
    auto fail = [&](std::string message) { exit_code = report({error_message(std::move(message))}); };
    const models::ModelInfo* model = models::find_model(a->model);
    if (!model) {
      fail(a->model.empty() ? "trace: --model is required (see remat trace --list)"
                            : "trace: unknown model '" + a->model + "' (see remat trace --list)");
      return;
    }
    auto plan = models::CheckpointPlan::parse(a->checkpoint);
    if (!plan) {
      exit_code = report(plan.errors());
      return;
    }
    a->options.checkpoint = *plan;
    Expected<GraphModule> m = model->trace(a->options);
    if (m && a->joint) m = autodiff::build_joint_graph(*m);
    if (!m) {
      exit_code = report(m.errors());
      return;
    }
    std::string text = a->output.ends_with(".json") ? write_graph_json(*m)
                                                     : print_readable(*m, a->flags.options()).text + "\n";
    Status written = write_file_atomic(a->output, text);
    exit_code = written ? kExitOk : report(written.errors());
  });
}

}  // namespace remat::cli
