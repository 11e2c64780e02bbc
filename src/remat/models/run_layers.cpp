#include <stdexcept>

#include "remat/models/detail/zoo_models.h"

namespace remat::models::detail {

trace::Tensor run_layers(const std::vector<std::function<trace::Tensor(trace::Tensor)>>& layers,
                         trace::Tensor x, const ModelOptions& options, std::source_location loc) {
  using Mode = CheckpointPlan::Mode;
  auto policy = policy_by_name(options.policy);
  if (!policy) throw std::invalid_argument(policy.errors().front().message);
  auto shared = std::make_shared<const trace::SacPolicy>(*policy);
  size_t group = options.checkpoint.mode == Mode::None ? 0
                 : options.checkpoint.mode == Mode::EachLayer
                     ? 1
                     : static_cast<size_t>(options.checkpoint.k);
  for (size_t i = 0; i < layers.size();) {
    size_t end = group == 0 ? i + 1 : std::min(i + group, layers.size());
    if (group == 0) {
      x = layers[i](x);
    } else {
      trace::detail::RegionGuard region(shared, loc);
      for (size_t j = i; j < end; ++j) x = layers[j](x);
    }
    i = end;
  }
  return x;
}

}  // namespace remat::models::detail
