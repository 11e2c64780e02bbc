// GraphStats: the counts `remat info` shows (nodes by op kind and target, bytes).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "remat/ir/graph_module.h"

namespace remat {

struct GraphStats {
  size_t num_nodes = 0;
  std::array<size_t, 6> by_op_kind{};  ///< indexed by OpKind
  /// call_function/call_method/call_module targets with their counts, most frequent first.
  std::vector<std::pair<std::string, size_t>> by_target;
  std::vector<std::string> placeholders;
  std::vector<std::string> outputs;  ///< output value names; "None" for None outputs
  /// Sum of nbytes over every tensor value with static metadata (tuple elements included).
  int64_t tensor_bytes = 0;
  size_t nodes_without_tensor_meta = 0;  ///< non-output nodes whose value has no static size
  size_t num_submodules = 0;
};

/// Counts over the module's own graph (submodules are counted, not descended into).
GraphStats compute_stats(const GraphModule& module);

}  // namespace remat
