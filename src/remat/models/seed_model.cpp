// The seed's test function (seed-pr.txt):
//   def gn(x, y): return torch.sigmoid(torch.matmul(x, y))
//   def fn(x, y): return torch.utils.checkpoint.checkpoint(gn, torch.sin(x), y, ...)
#include "remat/models/detail/zoo_models.h"

namespace remat::models::detail {
namespace {

using namespace remat::trace;

Tensor gn(Tensor x, Tensor y) {
  return sigmoid(matmul(x, y));
}

Tensor fn(Tensor x, Tensor y) {
  return checkpoint(gn, sin(x), y);
}

}  // namespace

Expected<GraphModule> trace_seed(const ModelOptions& options) {
  return traced(options, "seed", [](Tracer& tracer) {
    Tensor x = tracer.input("x", {4, 4}, DType::Float32, /*requires_grad=*/true);
    Tensor y = tracer.input("y", {4, 4}, DType::Float32, /*requires_grad=*/true);
    return std::vector<Tensor>{fn(x, y)};
  });
}

}  // namespace remat::models::detail
