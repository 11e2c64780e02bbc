// A partition's record (records/partition_record.h), filled from the joint graph and the graphs
// cut from it, and the step of the min-cut's budget ladder that chose its saved set.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "remat/partition/extract.h"
#include "remat/partition/value_bytes.h"
#include "remat/records/partition_record.h"

namespace remat::partition {

using records::BannedNode;
using records::BudgetPoint;
using records::PartitionCharts;
using records::RecomputedNode;
using records::RegionMap;
using records::SavedValue;
using records::TimelineCurve;

/// Which step produced a min-cut partition's saved set (docs/spec/partitioning.md §7.2). The rules
/// a partition keeps depend on it: below a budget of 1 the ban heuristics are switched off step by
/// step, and at budget 0 nothing but the inputs is saved, MUST_SAVE values included.
enum class PartitionStage {
  Cut,                ///< the min-cut with every ban heuristic (budget 1, or within budget)
  RelaxedBans,        ///< far-apart, long-fusible-chain and materialized-backward bans off
  Aggressive,         ///< also the allowlist ban off
  Knapsack,           ///< the knapsack let some banned values be recomputed
  InputsAndMustSave,  ///< nothing left for the knapsack: the inputs and MUST_SAVE values
  InputsOnly,         ///< budget 0: the inputs alone, no cut
  Default,            ///< the default partition (no cut)
  Optimal,            ///< the integer program's optimum within the budget
};
/// The words a record's `stage` holds for `stage`.
std::string_view stage_name(PartitionStage stage);

/// The record, and what only the partitioner's own checks read (not written to the record).
struct PartitionReport : records::PartitionRecord {
  PartitionStage step = PartitionStage::Cut;
  std::vector<std::string>
      tags_made_must_save;  ///< nodes the recompute-tag clean-up made MUST_SAVE

  void set_stage(PartitionStage s) {
    step = s;
    stage = stage_name(s);
  }
};

/// Fills the parts every strategy shares: saved values' bytes (reasons from `reasons`, by name),
/// the recomputed nodes (joint forward nodes the backward computes again), FLOPs and peak memory.
/// `origins`: where extract_forward_backward took the graphs' nodes from in `joint`.
PartitionReport describe_partition(const GraphModule& joint, const ForwardBackward& graphs,
                                   const JointOrigins& origins, std::string strategy,
                                   const std::vector<std::pair<std::string, std::string>>& reasons);

}  // namespace remat::partition
