// PyTorch's default partition (aot-partition spec §5): save every forward value the backward
// reads, unless it is tagged for recomputation.
#pragma once

#include <string>
#include <vector>

#include "remat/partition/extract.h"

namespace remat::partition {

struct DefaultPartition {
  ForwardBackward graphs;
  /// How the forward region was found: "partitioner tags" or, for graphs without them (PyTorch
  /// 1.13's, hand-built ones), "dataflow from the primals to the forward outputs".
  std::string forward_region_rule;
  std::vector<std::string> tags_changed;  ///< nodes the tag clean-up made MUST_SAVE
  std::vector<std::string> recompute_inputs;  ///< saved because a recomputed node reads them
  std::vector<std::string> rng_functionalized;  ///< random ops recomputed with the forward's RNG state
};

Expected<DefaultPartition> default_partition(const GraphModule& joint);

}  // namespace remat::partition
