// The model zoo: real models written against the tracer, sized by options, with checkpointing
// and selective-checkpoint policies, so every later stage has graphs to work on.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"
#include "remat/trace/sac_policy.h"

namespace remat::models {

/// Which layers run inside checkpoint regions.
struct CheckpointPlan {
  enum class Mode { None, EachLayer, EveryK } mode = Mode::None;
  int64_t k = 1;  ///< EveryK: layers are grouped k at a time, one region per group
  /// Parses `none`, `each-layer`, `every:K`.
  static Expected<CheckpointPlan> parse(std::string_view text);
  [[nodiscard]] std::string to_string() const;
};

/// Options shared by the models; each model reads the ones it lists.
struct ModelOptions {
  int64_t layers = 2;
  int64_t batch = 2;
  int64_t seq = 8;                  ///< sequence length (gpt2, embed-ce)
  int64_t hidden = 32;              ///< width / embedding size / channels
  int64_t heads = 4;                ///< attention heads (gpt2)
  int64_t vocab = 64;               ///< vocabulary (embed-ce) or classes (convnet)
  int64_t image = 16;               ///< image height and width (convnet)
  std::string activation = "gelu";  ///< mlp: relu or gelu
  bool layer_norm = false;          ///< mlp: layer norm after each activation
  double dropout = 0.0;             ///< gpt2: dropout probability (training mode)
  CheckpointPlan checkpoint;
  std::string policy = "recompute-all";  ///< see policy_names()
  std::string device = "cpu";
};

struct ModelInfo {
  std::string_view name;
  std::string_view description;
  std::vector<std::string_view> options;  ///< the ModelOptions fields the model reads
  Expected<GraphModule> (*trace)(const ModelOptions& options);
};

std::span<const ModelInfo> all_models();
const ModelInfo* find_model(std::string_view name);

/// The policies `--policy` accepts: `recompute-all`, `save-matmuls`, `save-ops:OP,OP`,
/// `save-names:N,N`, `save-all-but-names:N,N`.
std::vector<std::string_view> policy_names();
Expected<trace::SacPolicy> policy_by_name(std::string_view name);

/// Runs `body` under a fresh tracer and turns trace errors into diagnostics.
template <class Body>
Expected<GraphModule> traced(const ModelOptions& options, std::string_view name, Body&& body);

}  // namespace remat::models

#include "remat/models/detail/traced.h"
