#include "remat/models/model_zoo.h"

#include <charconv>

#include "remat/models/detail/zoo_models.h"

namespace remat::models {
namespace {

std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    size_t comma = s.find(',');
    if (comma != 0) out.emplace_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

Expected<CheckpointPlan> CheckpointPlan::parse(std::string_view text) {
  CheckpointPlan p;
  if (text == "none") return p;
  if (text == "each-layer") {
    p.mode = Mode::EachLayer;
    return p;
  }
  if (text.starts_with("every:")) {
    std::string_view n = text.substr(6);
    auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), p.k);
    if (ec == std::errc() && end == n.data() + n.size() && p.k >= 1) {
      p.mode = Mode::EveryK;
      return p;
    }
  }
  return error_message("bad checkpoint plan '" + std::string(text) +
                       "' (expected none, each-layer or every:K with K >= 1)");
}

std::string CheckpointPlan::to_string() const {
  switch (mode) {
    case Mode::None:
      return "none";
    case Mode::EachLayer:
      return "each-layer";
    case Mode::EveryK:
      return "every:" + std::to_string(k);
  }
  return "none";
}

std::span<const ModelInfo> all_models() {
  static const std::vector<ModelInfo> models = {
      {"seed",
       "the seed's test function: checkpoint(gn, sin(x), y), gn = sigmoid(matmul(x, y)), 4x4",
       {"device"},
       detail::trace_seed},
      {"mlp",
       "linear layers with relu or gelu, optional layer norm",
       {"layers", "batch", "hidden", "activation", "layer_norm", "checkpoint", "policy", "device"},
       detail::trace_mlp},
      {"gpt2",
       "GPT-2 decoder blocks: layer norm, fused qkv, causal attention (matmul, mask, softmax), "
       "projection, gelu MLP, residuals",
       {"layers", "batch", "seq", "hidden", "heads", "dropout", "checkpoint", "policy", "device"},
       detail::trace_gpt2},
      {"convnet",
       "conv2d + batch norm + relu + max pool blocks, then a linear classifier and cross-entropy",
       {"layers", "batch", "hidden", "image", "vocab", "checkpoint", "policy", "device"},
       detail::trace_convnet},
      {"embed-ce",
       "embedding, linear to the vocabulary, cross-entropy",
       {"batch", "seq", "hidden", "vocab", "checkpoint", "policy", "device"},
       detail::trace_embed_ce},
  };
  return models;
}

const ModelInfo* find_model(std::string_view name) {
  for (const ModelInfo& m : all_models()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::vector<std::string_view> policy_names() {
  return {"recompute-all", "save-matmuls", "save-ops:OP[,OP...]", "save-names:NAME[,NAME...]",
          "save-all-but-names:NAME[,NAME...]"};
}

Expected<trace::SacPolicy> policy_by_name(std::string_view name) {
  using trace::SacPolicy;
  if (name == "recompute-all") return SacPolicy::recompute_all();
  if (name == "save-matmuls")
    return SacPolicy::save_ops({"aten.mm.default", "aten.addmm.default", "aten.bmm.default"});
  try {
    if (name.starts_with("save-ops:")) return SacPolicy::save_ops(split_list(name.substr(9)));
  } catch (const std::invalid_argument& e) {
    return error_message(std::string("--policy: ") + e.what());
  }
  if (name.starts_with("save-names:"))
    return SacPolicy::save_only_these_names(split_list(name.substr(11)));
  if (name.starts_with("save-all-but-names:"))
    return SacPolicy::save_all_but_these_names(split_list(name.substr(19)));
  std::string known;
  for (std::string_view p : policy_names()) known += (known.empty() ? "" : ", ") + std::string(p);
  return error_message("unknown policy '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace remat::models
