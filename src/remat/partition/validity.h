// The partition validity checker: the invariants every partition must keep, whatever the
// strategy (used by the tests and by `remat partition --verify`).
#pragma once

#include <string>
#include <vector>

#include "remat/partition/extract.h"
#include "remat/partition/partition_report.h"

namespace remat::partition {

/// Checks, against the joint graph the partition came from:
///  - both graphs verify, and the forward returns the joint's forward outputs first;
///  - every backward input is a primal, a tangent or a forward output;
///  - no MUST_SAVE node (in the joint, or made so by the tag clean-up) is recomputed, views
///    excepted (PyTorch never bans recomputing a view: it costs nothing);
///  - no recompute-tagged node is saved, unless the tag clean-up made it MUST_SAVE;
///  - no banned node is recomputed.
/// Returns one line per violation (empty: valid).
std::vector<std::string> check_validity(const GraphModule& joint, const ForwardBackward& graphs,
                                        const PartitionReport& report);

}  // namespace remat::partition
