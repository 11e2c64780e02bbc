// One entry point for either strategy, for callers that let the user choose (remat partition,
// remat compile).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "remat/partition/min_cut.h"
#include "remat/partition/min_cut_partition.h"
#include "remat/partition/optimal_partition.h"
#include "remat/support/stage_timer.h"

namespace remat::partition {

enum class Strategy { MinCut, Default, Optimal };

/// `min-cut`, `default` or `optimal`; nullopt for anything else.
std::optional<Strategy> parse_strategy(std::string_view name);

struct Partition {
  ForwardBackward graphs;
  PartitionReport report;
  std::optional<FlowGraph> network;                         ///< min-cut only
  std::vector<StageTime> stages;                            ///< min-cut only: wall time per pass
  std::vector<std::pair<std::string, std::string>> merged;  ///< min-cut only: CSE, removed -> kept
  std::vector<std::string>
      rng_replayed;  ///< min-cut only: random ops recomputed with saved RNG state
  std::optional<OptimalOutcome> optimal;  ///< optimal only: how the solver ended
};

/// PyTorch's default partition, the min-cut partition with `config`, or the optimum (`config`'s
/// passes and budget fraction, `optimal`'s solver options).
Expected<Partition> partition_joint(const GraphModule& joint, Strategy strategy,
                                    const MinCutConfig& config = {},
                                    const OptimalOptions& optimal = {});

}  // namespace remat::partition
