// A reproducing policy (reproducing_policy.h) as the Python module `remat policy` writes: the
// table of each checkpoint region's op calls and the ones to save, and the `context_fn` that
// torch.utils.checkpoint takes.
#pragma once

#include <string>

#include "remat/partition/reproducing_policy.h"

namespace remat::partition {

/// The module's text. `source` says what chose the saved set (the module's docstring quotes it).
std::string policy_module_text(const ReproducingPolicy& policy, const std::string& source);

}  // namespace remat::partition
