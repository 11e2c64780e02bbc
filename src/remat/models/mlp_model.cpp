// An MLP: `layers` x (linear, relu|gelu, optional layer norm), square hidden layers.
#include "remat/models/detail/zoo_models.h"

namespace remat::models::detail {
namespace {

using namespace remat::trace;

struct Layer {
  Tensor weight, bias, ln_weight, ln_bias;
};

}  // namespace

Expected<GraphModule> trace_mlp(const ModelOptions& o) {
  return traced(o, "mlp", [&](Tracer& tracer) {
    if (o.activation != "relu" && o.activation != "gelu") {
      throw std::invalid_argument("mlp: --activation must be relu or gelu, not " + o.activation);
    }
    std::vector<Layer> params(o.layers);
    for (int64_t i = 0; i < o.layers; ++i) {
      ModuleScope scope("layers." + std::to_string(i), "Linear");
      params[i].weight = tracer.parameter("weight", {o.hidden, o.hidden});
      params[i].bias = tracer.parameter("bias", {o.hidden});
      if (o.layer_norm) {
        params[i].ln_weight = tracer.parameter("norm.weight", {o.hidden});
        params[i].ln_bias = tracer.parameter("norm.bias", {o.hidden});
      }
    }
    Tensor x = tracer.input("x", {o.batch, o.hidden});
    std::vector<std::function<Tensor(Tensor)>> layers;
    for (int64_t i = 0; i < o.layers; ++i) {
      layers.push_back([&, i](Tensor h) {
        ModuleScope scope("layers." + std::to_string(i), "Linear");
        const Layer& p = params[i];
        h = linear(h, p.weight, p.bias);
        h = o.activation == "relu" ? relu(h) : gelu(h);
        if (o.layer_norm) h = layer_norm(h, {o.hidden}, p.ln_weight, p.ln_bias);
        return h;
      });
    }
    return std::vector<Tensor>{run_layers(layers, x, o)};
  });
}

}  // namespace remat::models::detail
