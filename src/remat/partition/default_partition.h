// PyTorch's default partition (docs/spec/partitioning.md §5): save every forward value the backward
// reads, unless it is tagged for recomputation.
#pragma once

#include <string>
#include <vector>

#include "remat/partition/extract.h"
#include "remat/partition/partition_report.h"

namespace remat::partition {

struct DefaultPartition {
  ForwardBackward graphs;
  /// Its notes say how the forward region was found: by partitioner tags or, for graphs without
  /// them (PyTorch 1.13's, hand-built ones), by dataflow from the primals to the forward outputs.
  PartitionReport report;
};

Expected<DefaultPartition> default_partition(const GraphModule& joint);

}  // namespace remat::partition
