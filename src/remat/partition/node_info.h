// classify_nodes and dist_from_bw (aot-partition spec §6.3-§6.4): which joint nodes the forward
// and the backward need, and how far each forward node is from the backward.
#pragma once

#include <cstdint>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "remat/ir/graph_module.h"

namespace remat::partition {

struct NodeInfo {
  std::vector<const Node*> inputs;  ///< primals, in order
  absl::flat_hash_set<const Node*> required_fw;
  absl::flat_hash_set<const Node*> required_bw;
  absl::flat_hash_set<const Node*> tangents_closure;
  absl::flat_hash_map<const Node*, int64_t> fw_order;
  absl::flat_hash_map<const Node*, int64_t> dist_from_bw;
  absl::flat_hash_set<const Node*> static_lifetime_inputs;  ///< parameters and buffers

  [[nodiscard]] bool is_required_fw(const Node* n) const { return required_fw.contains(n); }
  [[nodiscard]] int64_t order(const Node* n) const { return fw_order.at(n); }
};

inline constexpr int64_t kFarFromBackward = 1'000'000'000;

/// A node whose value is a tuple read through `operator.getitem` (at least one user, all of them
/// getitems): layer norm, batch norm, nll_loss_forward, native_dropout, ... A tuple cannot be
/// saved; its elements are.
bool is_multi_output_parent(const Node& n);

/// The nodes the forward outputs need, computed from the primals (every primal included).
absl::flat_hash_set<const Node*> forward_dataflow_nodes(const GraphModule& joint);

NodeInfo classify_nodes(const GraphModule& joint);

}  // namespace remat::partition
