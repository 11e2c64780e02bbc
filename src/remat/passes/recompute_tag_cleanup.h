// The tag clean-up both partitioners run before deciding (docs/spec/partitioning.md §6.2; passes
// `tag-cleanup` and `tag-cleanup-default`).
#pragma once

#include "remat/ir/graph.h"
#include "remat/passes/pass.h"

namespace remat::passes {

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

/// `tag-cleanup` (the min-cut's: cases A and B) and `tag-cleanup-default` (A, B and C).
PassInfo recompute_tag_cleanup_pass();
PassInfo default_recompute_tag_cleanup_pass();

}  // namespace remat::passes
