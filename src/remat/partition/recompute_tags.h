// The tag clean-up both partitioners run before deciding (aot-partition spec §6.2).
#pragma once

#include "remat/ir/graph.h"

namespace remat::partition {

/// MUST_RECOMPUTE or PREFER_RECOMPUTE.
bool must_recompute(const Node& n);
/// Some node is must_recompute.
bool has_recomputable_ops(const Graph& g);

/// One pass in graph order; changes tags to MUST_SAVE:
///  A. a must_recompute node with a must_recompute user of a later region (both with ids): the
///     boundary between consecutive regions;
///  B. a must_recompute node with `has_backward_hook` meta and no must_recompute user;
///  C. (default partition only) an untagged-region node with a must_recompute user: a region input,
///     except a getitem whose tuple parent has a region id.
/// Returns the nodes changed, in graph order.
std::vector<Node*> cleanup_recompute_tags(Graph& g, bool is_default_partition);

}  // namespace remat::partition
