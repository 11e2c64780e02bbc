// The TORCH_TRACE records of one AOTAutograd compile, as PyTorch logs them (and tlparse prints
// them): shared by remat compile and by remat report on graph files.
#pragma once

#include "remat/ir/graph_module.h"
#include "remat/partition/partition_report.h"
#include "remat/tracelog/trace_writer.h"

namespace remat::driver {

/// aot_joint_graph, aot_forward_graph and aot_backward_graph in tlparse's print options, then
/// remat's partition record when `report` is given (a partition PyTorch made has none).
void write_aot_records(tracelog::TraceWriter& w, const tracelog::CompileId& id,
                       const GraphModule& joint, const GraphModule& forward,
                       const GraphModule& backward, const partition::PartitionReport* report);

}  // namespace remat::driver
