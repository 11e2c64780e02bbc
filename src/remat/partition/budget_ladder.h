// The memory budget (docs/spec/partitioning.md §7.2): cuts of decreasing heuristic caution until
// one saves few enough bytes, then a knapsack over the banned values.
#pragma once

#include <string>
#include <vector>

#include "remat/partition/cut_network.h"

namespace remat::partition {

/// The saved set the budget chose and how it got there.
struct BudgetChoice {
  CutSolution cut;  ///< no cut value, network or bans when no cut chose the saved set
  PartitionStage stage = PartitionStage::Cut;
  std::vector<std::string> notes;  ///< one line per relaxation the budget needed
};

/// Budget 1 is the plain cut; budget 0 saves the primals (and what is never safe to run
/// twice). In between, each relaxation level turns more ban heuristics off until the saved
/// bytes beyond the primals fall under `budget` of the plain cut's; if none does, a knapsack
/// (config.knapsack) picks which banned values may be recomputed after all.
Expected<BudgetChoice> cut_within_budget(const GraphModule& joint, const NodeInfo& info,
                                         const MinCutConfig& config);

}  // namespace remat::partition
