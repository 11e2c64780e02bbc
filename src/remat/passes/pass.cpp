#include "remat/passes/pass.h"

namespace remat::passes {

int64_t PassResult::statistic(std::string_view name) const {
  for (const auto& [key, value] : statistics)
    if (key == name) return value;
  return 0;
}

}  // namespace remat::passes
