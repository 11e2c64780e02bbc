// PyTorch's min_cut_rematerialization_partition (docs/spec/partitioning.md §6, current main):
// decide what the forward saves by a minimum cut of a flow network built from the joint graph.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "remat/partition/extract.h"
#include "remat/partition/min_cut.h"
#include "remat/partition/min_cut_config.h"
#include "remat/partition/node_info.h"
#include "remat/partition/partition_report.h"
#include "remat/support/stage_timer.h"

namespace remat::partition {

struct MinCutPartition {
  ForwardBackward graphs;
  PartitionReport report;
  FlowGraph network;              ///< the network solved (for --dump-flow)
  std::vector<StageTime> stages;  ///< wall time per pass, for progress output and metrics
  /// Joint nodes CSE removed, each with the node that replaced it: the graphs name only the
  /// latter (a caller cutting modules out of its own copy of the joint applies the same merges).
  std::vector<std::pair<std::string, std::string>> merged;
  /// Random ops the backward recomputes with the forward's RNG state (rng functionalization).
  std::vector<std::string> rng_replayed;
};

/// A copy of the joint after the passes the min-cut and the optimum run before choosing what to
/// save (dead code, CSE, tag clean-up), with what they did.
struct PreparedJoint {
  GraphModule joint;
  NodeInfo info;
  std::vector<std::pair<std::string, std::string>> merged;   ///< CSE: removed -> kept
  std::vector<std::pair<std::string, std::string>> reasons;  ///< saved value -> why
  std::vector<std::string> made_must_save;                   ///< by the tag clean-up
  std::vector<std::string> notes;
};
/// Checks the budget and that the joint is one the partitioners can weigh, then runs the passes.
Expected<PreparedJoint> prepare_joint(const GraphModule& original, const MinCutConfig& config,
                                      StageTimer& timer);

/// The partition that saves `saved` and `saved_sym` (joint nodes of `prepared`): the graphs, RNG
/// replay for recomputed random ops, the report. `why_saved` words the reason of each saved
/// value the passes did not already explain.
Expected<MinCutPartition> partition_saving(const PreparedJoint& prepared,
                                           std::vector<const Node*> saved,
                                           std::vector<const Node*> saved_sym, std::string strategy,
                                           const std::function<std::string(const Node&)>& why_saved,
                                           StageTimer& timer);

/// Partitions `joint`. An unbounded cut (a value that can be neither saved nor recomputed) is an
/// error naming the nodes on the all-infinite path and why each edge is infinite.
Expected<MinCutPartition> min_cut_partition(const GraphModule& joint,
                                            const MinCutConfig& config = {});

}  // namespace remat::partition
