// Forward and backward graphs out of a joint graph, given what the forward saves
// (aot-partition spec §8): recomputation happens by construction, as in PyTorch.
#pragma once

#include <string>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"

namespace remat::partition {

struct ForwardBackward {
  GraphModule forward;   ///< primals -> forward outputs + saved tensors + saved symints
  GraphModule backward;  ///< saved symints + saved tensors + tangents -> gradients
  std::vector<std::string> saved_values;   ///< tensors the forward returns for the backward
  std::vector<std::string> saved_symints;  ///< symbolic sizes it returns for the backward
};

/// Builds both graphs. `saved_values` and `saved_symints` are joint nodes in the order the forward
/// returns them; saved values the backward does not read are dropped. The backward is reordered to
/// mimic the autograd engine (recomputations right before first use) and getitems sit right after
/// their producer in both graphs.
Expected<ForwardBackward> extract_forward_backward(const GraphModule& joint,
                                                   const std::vector<const Node*>& saved_values,
                                                   const std::vector<const Node*>& saved_symints);

}  // namespace remat::partition
