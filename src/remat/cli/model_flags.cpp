#include "remat/cli/model_flags.h"

#include <fmt/format.h>

#include <algorithm>

namespace remat::cli {

namespace {

// The flag of a ModelOptions field: `layer_norm` -> `--layer-norm`.
std::string flag_of(std::string_view field) {
  std::string flag(field);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return "--" + flag;
}

}  // namespace

void ModelFlags::add_to(CLI::App& cmd) {
  models::ModelOptions& o = options;
  cmd.add_option("--model", model, "the model of the zoo (remat trace --list)");
  flags_ = {
      {"layers", cmd.add_option("--layers", o.layers, "number of layers / blocks")
                     ->check(CLI::Range(1, 4096))},
      {"checkpoint", cmd.add_option("--checkpoint", checkpoint, "none, each-layer or every:K")},
      {"policy",
       cmd.add_option("--policy", o.policy,
                      "selective-checkpointing policy for the regions (see remat trace --list)")},
      {"batch", cmd.add_option("--batch", o.batch, "batch size")->check(CLI::Range(1, 1 << 20))},
      {"seq", cmd.add_option("--seq", o.seq, "sequence length")->check(CLI::Range(1, 1 << 20))},
      {"hidden", cmd.add_option("--hidden", o.hidden, "hidden width / channels")
                     ->check(CLI::Range(1, 1 << 20))},
      {"heads", cmd.add_option("--heads", o.heads, "attention heads")->check(CLI::Range(1, 4096))},
      {"vocab", cmd.add_option("--vocab", o.vocab, "vocabulary size / classes")
                    ->check(CLI::Range(1, 1 << 24))},
      {"image",
       cmd.add_option("--image", o.image, "image side in pixels")->check(CLI::Range(1, 1 << 14))},
      {"activation", cmd.add_option("--activation", o.activation, "relu or gelu (mlp)")
                         ->check(CLI::IsMember({"relu", "gelu"}))},
      {"layer_norm",
       cmd.add_flag("--layer-norm", o.layer_norm, "layer norm after each activation (mlp)")},
      {"dropout",
       cmd.add_option("--dropout", o.dropout, "dropout probability, training mode (gpt2)")
           ->check(CLI::Range(0.0, 1.0))},
      {"device", cmd.add_option("--device", o.device,
                                "device recorded in tensor metadata (cpu, cuda:0, ...)")},
  };
}

Expected<ModelFlags::Resolved> ModelFlags::resolve(std::string_view verb) const {
  const models::ModelInfo* info = models::find_model(model);
  if (!info) {
    return error_message(model.empty()
                             ? std::string(verb) + ": --model is required (see remat trace --list)"
                             : std::string(verb) + ": unknown model '" + model +
                                   "' (see remat trace --list)");
  }
  // A flag the model does not read would be silently ignored: say so instead.
  for (const auto& [field, option] : flags_) {
    if (option->count() == 0 ||
        std::find(info->options.begin(), info->options.end(), field) != info->options.end())
      continue;
    std::string takes;
    for (std::string_view f : info->options) takes += (takes.empty() ? "" : " ") + flag_of(f);
    return error_message(fmt::format("{}: {} does not apply to model '{}' (it takes: {})", verb,
                                     flag_of(field), info->name, takes));
  }
  auto plan = models::CheckpointPlan::parse(checkpoint);
  if (!plan) return plan.errors();
  Resolved out{info, options};
  out.options.checkpoint = *plan;
  return out;
}

std::string ModelFlags::describe(const models::ModelInfo& info) const {
  std::string out(info.name);
  for (std::string_view f : info.options) out += " " + flag_of(f) + " " + value_of(f);
  return out;
}

std::string ModelFlags::value_of(std::string_view field) const {
  const models::ModelOptions& o = options;
  if (field == "layers") return std::to_string(o.layers);
  if (field == "checkpoint") return checkpoint;
  if (field == "policy") return o.policy;
  if (field == "batch") return std::to_string(o.batch);
  if (field == "seq") return std::to_string(o.seq);
  if (field == "hidden") return std::to_string(o.hidden);
  if (field == "heads") return std::to_string(o.heads);
  if (field == "vocab") return std::to_string(o.vocab);
  if (field == "image") return std::to_string(o.image);
  if (field == "activation") return o.activation;
  if (field == "layer_norm") return o.layer_norm ? "on" : "off";
  if (field == "dropout") return fmt::format("{}", o.dropout);
  if (field == "device") return o.device;
  return "?";
}

}  // namespace remat::cli
