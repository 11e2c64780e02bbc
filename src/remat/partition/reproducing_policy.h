// The selective-checkpointing policy that makes PyTorch's own partitioner save a chosen set:
// PREFER_RECOMPUTE for the op calls whose values the chosen partition recomputes, MUST_SAVE for
// every other call in a checkpoint region (saved, or not needed by the backward: pinned, so that
// PyTorch's min-cut has no other way through the region), keyed as a policy sees them (the
// region, the op, its call index there). The
// joint graph, retagged as the policy would tag it, is partitioned by the min-cut (PyTorch's, as
// remat reproduces it) to predict what PyTorch will save, and every value where the prediction and
// the choice differ is named with the reason (docs/partitioner.md, "A policy that reproduces it").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/partition/min_cut_config.h"
#include "remat/partition/region_calls.h"
#include "remat/support/expected.h"

namespace remat::partition {

/// One op call a policy sees inside a checkpoint region, and the joint nodes it made: the op's
/// own node(s) (several where a decomposition split it; `original_aten` meta says which) and the
/// getitems that read its outputs.
struct PolicyCall {
  std::string op;     ///< as the joint shows it: `aten.addmm.default` (the module's as_in_joint)
  int64_t index = 0;  ///< the index-th call of `op` in its region, from 0
  bool save = false;  ///< MUST_SAVE (else PREFER_RECOMPUTE: the choice recomputes it)
  std::vector<std::string> nodes;
  std::vector<std::string> saved;  ///< the chosen values among `nodes`
};

/// A checkpoint region in the order the forward enters it (its `ac_graph_id` in this joint).
struct PolicyRegion {
  int64_t ac_graph_id = 0;
  std::vector<PolicyCall> calls;
};

/// A value whose fate under the policy differs from the choice.
struct PolicyMismatch {
  std::string name;
  bool chosen_saved = false;     ///< the choice saves it
  bool predicted_saved = false;  ///< PyTorch's min-cut with the policy saves it
  std::string why;
};

struct ReproducingPolicy {
  std::vector<PolicyRegion> regions;
  /// Region nodes made by ops selective checkpointing never shows a policy (`aten.detach`, the
  /// metadata queries): PyTorch tags them PREFER_RECOMPUTE.
  std::vector<std::string> unseen;
  std::vector<std::string> chosen;         ///< the saved set asked for, in joint order
  std::vector<std::string> predicted;      ///< what PyTorch's min-cut saves with the policy
  std::vector<PolicyMismatch> mismatches;  ///< empty: the policy reproduces the choice exactly
  /// Random ops PyTorch's min-cut recomputes with the policy: it also saves the RNG state of each
  /// (run_and_save_rng_state), a few bytes beside the chosen values.
  std::vector<std::string> rng_replayed;

  [[nodiscard]] size_t call_count() const;
  [[nodiscard]] size_t saved_call_count() const;
};

/// "" when the policy's run recomputes no random op, else ", plus the RNG state of the N random
/// ops it recomputes (names)": what PyTorch saves beside the chosen values.
std::string rng_state_note(const ReproducingPolicy& policy);

/// The policy for the partition that saves `saved` and recomputes `recomputed` (joint node
/// names, as a partition record lists them). `config`: the min-cut settings PyTorch will
/// partition with (its budget is ignored: a policy's run keeps PyTorch's default budget).
/// Errors: no checkpoint region in the joint, a name the joint does not have, a joint the
/// min-cut cannot partition.
Expected<ReproducingPolicy> reproducing_policy(const GraphModule& joint,
                                               const std::vector<std::string>& saved,
                                               const std::vector<std::string>& recomputed,
                                               const MinCutConfig& config = {});

}  // namespace remat::partition
