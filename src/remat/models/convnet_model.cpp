// A small conv net: `layers` x (conv 3x3, batch norm, relu, max pool 2), flatten, linear to
// `vocab` classes, cross-entropy against integer labels.
#include "remat/models/detail/zoo_models.h"

namespace remat::models::detail {
namespace {

using namespace remat::trace;

struct ConvBlock {
  Tensor conv_w, conv_b, bn_w, bn_b, running_mean, running_var;
};

}  // namespace

Expected<GraphModule> trace_convnet(const ModelOptions& o) {
  return traced(o, "convnet", [&](Tracer& tracer) {
    if ((o.image >> o.layers) < 1) {
      throw std::invalid_argument("convnet: an image of " + std::to_string(o.image) +
                                  " pixels cannot be pooled " + std::to_string(o.layers) +
                                  " times");
    }
    std::vector<ConvBlock> blocks;
    for (int64_t i = 0; i < o.layers; ++i) {
      ModuleScope scope("features." + std::to_string(i), "ConvBlock");
      int64_t cin = i == 0 ? 3 : o.hidden;
      ConvBlock b;
      b.conv_w = tracer.parameter("conv.weight", {o.hidden, cin, 3, 3});
      b.conv_b = tracer.parameter("conv.bias", {o.hidden});
      b.bn_w = tracer.parameter("bn.weight", {o.hidden});
      b.bn_b = tracer.parameter("bn.bias", {o.hidden});
      b.running_mean = tracer.buffer("bn.running_mean", {o.hidden});
      b.running_var = tracer.buffer("bn.running_var", {o.hidden});
      blocks.push_back(b);
    }
    int64_t side = o.image >> o.layers, features = o.hidden * side * side;
    Tensor fc_w = tracer.parameter("classifier.weight", {o.vocab, features});
    Tensor fc_b = tracer.parameter("classifier.bias", {o.vocab});
    Tensor images = tracer.input("images", {o.batch, 3, o.image, o.image});
    Tensor labels = tracer.input("labels", {o.batch}, DType::Int64);
    std::vector<std::function<Tensor(Tensor)>> layers;
    for (int64_t i = 0; i < o.layers; ++i) {
      layers.push_back([&, i](Tensor h) {
        ModuleScope scope("features." + std::to_string(i), "ConvBlock");
        const ConvBlock& b = blocks[i];
        h = conv2d(h, b.conv_w, b.conv_b, {1, 1}, {1, 1});
        h = relu(batch_norm(h, b.bn_w, b.bn_b, b.running_mean, b.running_var));
        return max_pool2d(h, {2, 2});
      });
    }
    Tensor h = run_layers(layers, images, o);
    Tensor logits = linear(h.view({o.batch, features}), fc_w, fc_b);
    return std::vector<Tensor>{cross_entropy(logits, labels)};
  });
}

}  // namespace remat::models::detail
