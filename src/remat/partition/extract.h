// Forward and backward graphs out of a joint graph, given what the forward saves
// (docs/spec/partitioning.md §8): recomputation happens by construction, as in PyTorch.
#pragma once

#include <string>
#include <vector>

#include "remat/ir/forward_backward.h"
#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"

namespace remat::partition {

/// Where the nodes of extracted graphs come from, valid while the joint lives: the joint node each
/// node of the forward and the backward copies, by the copy's id (nullptr for nodes extraction
/// or later passes made, such as the outputs), and the joint nodes of
/// ForwardBackward::saved_values, in order. Lets the report read the joint without names.
struct JointOrigins {
  std::vector<const Node*> forward, backward;
  std::vector<const Node*> saved_values;

  [[nodiscard]] static const Node* of(const std::vector<const Node*>& origins, const Node* n) {
    return n->id() < origins.size() ? origins[n->id()] : nullptr;
  }
};

/// Builds both graphs. `saved_values` and `saved_symints` are joint nodes in the order the forward
/// returns them; saved values the backward does not read are dropped. The backward is reordered to
/// mimic the autograd engine (recomputations right before first use) and getitems sit right after
/// their producer in both graphs.
/// `origins`, when given, receives where each node came from.
Expected<ForwardBackward> extract_forward_backward(const GraphModule& joint,
                                                   const std::vector<const Node*>& saved_values,
                                                   const std::vector<const Node*>& saved_symints,
                                                   JointOrigins* origins = nullptr);

}  // namespace remat::partition
