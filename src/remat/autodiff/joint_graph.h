// The joint forward+backward graph of a traced forward graph, built the way AOTAutograd traces
// it (docs/spec/partitioning.md §3-§4): primals, tangents, the forward ops, then the backward ops
// in autograd-engine order, forward outputs followed by one gradient per primal.
#pragma once

#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"

namespace remat::autodiff {

/// Builds the joint graph. Primals are the forward graph's placeholders in order (those whose
/// tensor metadata says requires_grad get gradients); every floating-point output that depends on
/// them gets a tangent. Errors name the node whose op has no derivative rule.
Expected<GraphModule> build_joint_graph(const GraphModule& forward);

}  // namespace remat::autodiff
