// Which op call of selective activation checkpointing made each node of a joint graph's
// checkpoint regions: a policy tags op calls, not nodes, and every node a call makes takes its
// tag (docs/partitioner.md, "Keys"). The calls are read off the joint alone, as PyTorch 2.13 traced
// it (with `original_aten` and autograd sequence numbers) or printed it in a TORCH_TRACE log
// (tracebacks only); python/tests/policy_tags.py checks the reading against PyTorch's own tags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "remat/ir/graph_module.h"

namespace remat::partition {

/// The op calls selective checkpointing shows a policy in the joint's checkpoint regions, in the
/// order the forward made them, each with the joint nodes it made. What functionalization and
/// autograd add to the plain one-node-per-call picture:
///  - a decomposed op's nodes carry the op that made them (`original_aten`): one call;
///  - an in-place op is shown as itself (`aten.add_.Tensor`) and made as its functional form
///    (`aten.add.Tensor`: the policy module's `as_in_joint` keys it so); where it changed a view,
///    its call also made the nodes that write the result back to the base and view it again
///    (views, `*_scatter`), and where the result requires grad, autograd then replays the view's
///    ops on the base: calls the policy sees whose nodes all died (`nodes` empty);
///  - `remade`: views of a tensor an in-place op changed that functionalization made again while
///    selective checkpointing stored a call's output, after the policy tagged the call's own node
///    (which then died): PyTorch tags them PREFER_RECOMPUTE whatever the policy says. The last
///    view of such a chain is the call's output and holds its place (`Call::remade`); the joint
///    shows them by name: the view's previous number (`transpose_1` for `transpose_2`) is gone;
///    every later view of a changed tensor is so (functionalization no longer marks it up to
///    date): of a chain of view calls only the last's remakes live, and the earlier calls, whose
///    nodes died, come where FX's numbering of their nodes and remakes puts them (Longformer's
///    query after `query_vectors /= ...`, between the key's live views);
///  - calls whose every node died (an unused projection, a loop's last state update) leave only
///    gaps in FX's numbering of their op: between two of its nodes in a region, or at a region's
///    ends (each region of a run of regions making as many), less the views functionalization
///    numbered making them again;
///  - `unseen`: nodes of ops no policy sees (`detach`, metadata queries): PREFER_RECOMPUTE.
/// Not read: a detach functionalization makes of a tensor an item assignment changed takes the
/// tag of the next call, which may have left no other node (remat predicts PREFER_RECOMPUTE).
struct RegionCalls {
  struct Call {
    int64_t region = 0;  ///< ac_graph_id
    std::string op;      ///< `aten.addmm.default`, as the joint shows it
    int64_t index = 0;   ///< the index-th call of `op` in its region, from 0
    std::vector<const Node*> nodes;
    bool remade = false;  ///< its node is remade: tagged PREFER_RECOMPUTE whatever the policy says
  };
  std::vector<Call> calls;
  std::vector<const Node*> unseen;
  std::vector<const Node*> remade;
};

RegionCalls region_calls(const GraphModule& joint);

}  // namespace remat::partition
