#include "remat/cli/model_flags.h"

namespace remat::cli {

void ModelFlags::add_to(CLI::App& cmd) {
  models::ModelOptions& o = options;
  cmd.add_option("--model", model, "the model of the zoo (remat trace --list)");
  cmd.add_option("--layers", o.layers, "number of layers / blocks")->check(CLI::Range(1, 4096));
  cmd.add_option("--checkpoint", checkpoint, "none, each-layer or every:K");
  cmd.add_option("--policy", o.policy, "selective-checkpointing policy for the regions (see remat trace --list)");
  cmd.add_option("--batch", o.batch, "batch size")->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--seq", o.seq, "sequence length")->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--hidden", o.hidden, "hidden width / channels")->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--heads", o.heads, "attention heads")->check(CLI::Range(1, 4096));
  cmd.add_option("--vocab", o.vocab, "vocabulary size / classes")->check(CLI::Range(1, 1 << 24));
  cmd.add_option("--image", o.image, "image side in pixels")->check(CLI::Range(1, 1 << 14));
  cmd.add_option("--activation", o.activation, "relu or gelu (mlp)")->check(CLI::IsMember({"relu", "gelu"}));
  cmd.add_flag("--layer-norm", o.layer_norm, "layer norm after each activation (mlp)");
  cmd.add_option("--dropout", o.dropout, "dropout probability, training mode (gpt2)")->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--device", o.device, "device recorded in tensor metadata (cpu, cuda:0, ...)");
}

Expected<const models::ModelInfo*> ModelFlags::resolve(std::string_view verb) {
  const models::ModelInfo* info = models::find_model(model);
  if (!info) {
    return error_message(model.empty() ? std::string(verb) + ": --model is required (see remat trace --list)"
                                       : std::string(verb) + ": unknown model '" + model + "' (see remat trace --list)");
  }
  auto plan = models::CheckpointPlan::parse(checkpoint);
  if (!plan) return plan.errors();
  options.checkpoint = *plan;
  return info;
}

}  // namespace remat::cli
