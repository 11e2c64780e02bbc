// The flow network of a joint graph (docs/spec/partitioning.md §6.6-§6.8) with the ban heuristics,
// and its minimum cut: the values the forward saves.
#pragma once

#include <optional>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/ir/node_set.h"
#include "remat/partition/min_cut_config.h"
#include "remat/partition/node_info.h"
#include "remat/partition/partition_report.h"
#include "remat/support/expected.h"

namespace remat::partition {

/// One min-cut of the network built with `config`'s ban heuristics.
struct CutSolution {
  std::vector<const Node*> saved, saved_sym;  ///< in graph order
  std::vector<BannedNode> banned;
  NodeSet banned_nodes;
  std::optional<double> cut_value;  ///< none when no cut chose the saved set
  FlowGraph network;
};

/// Builds the network (nodes in `dont_ban` are never banned: the knapsack's choice) and cuts
/// it. An unbounded cut is an error naming the all-infinite path and why each edge is infinite.
Expected<CutSolution> solve_cut(const GraphModule& joint, const NodeInfo& info,
                                const MinCutConfig& config, const NodeSet& dont_ban);

}  // namespace remat::partition
