// classify_nodes and dist_from_bw (docs/spec/partitioning.md §6.3-§6.4): which joint nodes the
// forward and the backward need, and how far each forward node is from the backward.
#pragma once

#include <cstdint>

#include "remat/ir/graph_module.h"
#include "remat/ir/node_set.h"
#include "remat/partition/op_classes.h"

namespace remat::partition {

/// Per joint node, by node id (Note [node ids]).
struct NodeInfo {
  std::vector<const Node*> inputs;  ///< primals, in order
  NodeSet required_fw;
  NodeSet required_bw;
  NodeSet tangents_closure;
  NodeMap<int64_t> fw_order;       ///< position among the required_fw nodes
  NodeMap<int64_t> dist_from_bw;   ///< every node has one
  NodeSet static_lifetime_inputs;  ///< parameters and buffers
  OpClasses ops;                   ///< views, random, recomputable, fusible

  [[nodiscard]] bool is_required_fw(const Node* n) const { return required_fw.contains(n); }
  [[nodiscard]] int64_t order(const Node* n) const { return fw_order[n]; }
};

inline constexpr int64_t kFarFromBackward = 1'000'000'000;

/// A node whose value is a tuple read through `operator.getitem` (at least one user, all of them
/// getitems): layer norm, batch norm, nll_loss_forward, native_dropout, ... A tuple cannot be
/// saved; its elements are.
bool is_multi_output_parent(const Node& n);

/// A node a partition places as it places any computation: a call_function, or a get_attr (a
/// module attribute such as a lifted tensor constant, which the forward and the backward, both cut
/// from the joint's module, read alike). Placeholders and the output are not.
bool is_computed_in_graph(const Node& n);

/// The nodes the forward outputs need, computed from the primals (every primal included).
NodeSet forward_dataflow_nodes(const GraphModule& joint);

NodeInfo classify_nodes(const GraphModule& joint);

}  // namespace remat::partition
