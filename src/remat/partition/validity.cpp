#include "remat/partition/validity.h"

#include <absl/container/flat_hash_set.h>

#include "remat/ir/graph.h"
#include "remat/ir/purity.h"
#include "remat/ir/verify.h"
#include "remat/ops/op_registry.h"
#include "remat/passes/recompute_tag_cleanup.h"

namespace remat::partition {

std::vector<std::string> check_validity(const GraphModule& joint, const ForwardBackward& graphs,
                                        const PartitionReport& report) {
  std::vector<std::string> v;
  if (!verify(graphs.forward).empty())
    v.push_back("the forward graph does not verify: " + format_all(verify(graphs.forward)));
  if (!verify(graphs.backward).empty())
    v.push_back("the backward graph does not verify: " + format_all(verify(graphs.backward)));
  // The forward's first outputs are the joint's forward outputs (or, after common-subexpression
  // elimination, the same op on the same kind of value).
  std::vector<Argument> joint_out = joint.outputs(), fw_out = graphs.forward.outputs();
  size_t num_fwd = num_forward_outputs(joint);
  for (size_t i = 0; i < num_fwd; ++i) {
    const Node* want = joint_out[i].is_node() ? joint_out[i].as_node() : nullptr;
    const Node* got = i < fw_out.size() && fw_out[i].is_node() ? fw_out[i].as_node() : nullptr;
    bool same = want && got ? (want->name() == got->name() || want->target() == got->target())
                            : want == got;
    if (!same) {
      v.push_back("forward output " + std::to_string(i) + " is " + (got ? got->name() : "None") +
                  ", the joint's is " + (want ? want->name() : "None"));
    }
  }
  // Backward inputs.
  absl::flat_hash_set<std::string> available;
  for (const Node* p : joint.graph().placeholders()) available.insert(p->name());
  for (const Argument& a : fw_out) {
    if (a.is_node()) available.insert(a.as_node()->name());
  }
  for (const Node* p : graphs.backward.graph().placeholders()) {
    if (!available.contains(p->name()))
      v.push_back("backward input " + p->name() +
                  " is neither a primal, a tangent nor a forward output");
  }
  // Tags and bans.
  absl::flat_hash_set<std::string> banned,
      saved(graphs.saved_values.begin(), graphs.saved_values.end());
  // The clean-up's MUST_SAVE counts where it took effect: on the values saved. (Getitems it tags
  // may still be recomputed: PyTorch never bans a getitem.)
  absl::flat_hash_set<std::string> made_must_save;
  for (const std::string& n : report.tags_made_must_save) {
    if (saved.contains(n)) made_must_save.insert(n);
  }
  for (const BannedNode& b : report.banned) banned.insert(b.name);
  absl::flat_hash_set<std::string> recomputed;
  for (const Node* n : graphs.backward.graph().nodes()) {
    const Node* j = joint.graph().find(n->name());
    if (n->op() == OpKind::CallFunction && j &&
        (graphs.forward.graph().find(n->name()) ||
         j->meta.partitioner_tag == PartitionerTag::IsForward)) {
      recomputed.insert(n->name());
    }
  }
  for (const Node* j : joint.graph().nodes()) {
    const std::string& name = j->name();
    bool must_save =
        j->meta.recompute == CheckpointPolicy::MustSave || made_must_save.contains(name);
    // Views are the exception PyTorch makes: it never bans recomputing a view, MUST_SAVE or not.
    bool view = node_is(*j, OpCategory::View);
    // At a memory budget of 0 PyTorch saves the inputs alone, MUST_SAVE values included.
    bool inputs_only = report.step == PartitionStage::InputsOnly;
    if (must_save && !view && !inputs_only && recomputed.contains(name))
      v.push_back(name + " is MUST_SAVE but the backward recomputes it");
    // The optimum overrules PREFER_RECOMPUTE (which values of a region to save is its question).
    bool preference_only = j->meta.recompute == CheckpointPolicy::PreferRecompute &&
                           report.step == PartitionStage::Optimal;
    if (passes::must_recompute(*j) && !preference_only && saved.contains(name) &&
        !made_must_save.contains(name)) {
      v.push_back(name + " is tagged " + std::string(policy_name(*j->meta.recompute)) +
                  " but the forward saves it");
    }
    if (banned.contains(name) && recomputed.contains(name))
      v.push_back(name + " is banned from recomputation but the backward recomputes it");
    // Running a random or in-place op twice changes the result (new random numbers), unless the
    // backward replays the forward's RNG state.
    if (recomputed.contains(name) && is_impure(*j, /*random_is_impure=*/true)) {
      const Node* b = graphs.backward.graph().find(name);
      if (!(b && b->target().view().find("run_with_rng_state") != std::string_view::npos))
        v.push_back(name + " is random or mutates its input (" + std::string(j->target().view()) +
                    ") but the backward runs it again");
    }
  }
  return v;
}

}  // namespace remat::partition
