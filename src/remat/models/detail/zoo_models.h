// The zoo's models, one file each; the registry in model_zoo.cpp lists them.
#pragma once

#include "remat/models/model_zoo.h"
#include "remat/trace/checkpoint.h"

namespace remat::models::detail {

Expected<GraphModule> trace_seed(const ModelOptions& options);
Expected<GraphModule> trace_mlp(const ModelOptions& options);
Expected<GraphModule> trace_gpt2(const ModelOptions& options);
Expected<GraphModule> trace_convnet(const ModelOptions& options);
Expected<GraphModule> trace_embed_ce(const ModelOptions& options);

/// Runs `layers` layer functions in order, wrapping them in checkpoint regions as `plan` says
/// (one region per layer, or per group of k layers), each region using `policy`.
/// `loc` is where the regions are said to open (the model's line).
trace::Tensor run_layers(const std::vector<std::function<trace::Tensor(trace::Tensor)>>& layers,
                         trace::Tensor x, const ModelOptions& options,
                         std::source_location loc = std::source_location::current());

}  // namespace remat::models::detail
