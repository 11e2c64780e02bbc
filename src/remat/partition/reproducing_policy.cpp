#include "remat/partition/reproducing_policy.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "remat/ops/op_registry.h"
#include "remat/partition/min_cut_partition.h"

namespace remat::partition {
size_t ReproducingPolicy::call_count() const {
  size_t n = 0;
  for (const PolicyRegion& r : regions) n += r.calls.size();
  return n;
}

size_t ReproducingPolicy::saved_call_count() const {
  size_t n = 0;
  for (const PolicyRegion& r : regions)
    n += std::count_if(r.calls.begin(), r.calls.end(), [](const PolicyCall& c) { return c.save; });
  return n;
}

std::string rng_state_note(const ReproducingPolicy& policy) {
  const std::vector<std::string>& ops = policy.rng_replayed;
  if (ops.empty()) return "";
  constexpr size_t kNamed = 4;
  std::string names;
  for (size_t i = 0; i < std::min(ops.size(), kNamed); ++i) names += (i ? ", " : "") + ops[i];
  if (ops.size() > kNamed) names += ", ...";
  return ", plus the RNG state of the " + std::to_string(ops.size()) + " random op" +
         (ops.size() == 1 ? "" : "s") + " it recomputes (" + names + ")";
}

Expected<ReproducingPolicy> reproducing_policy(const GraphModule& joint,
                                               const std::vector<std::string>& saved,
                                               const std::vector<std::string>& recomputed,
                                               const MinCutConfig& config) {
  const Graph& g = joint.graph();
  std::set<std::string> chosen(saved.begin(), saved.end());
  std::set<std::string> again(recomputed.begin(), recomputed.end());
  // (A recomputed name the joint lacks is a node a later pass made, such as an RNG state's.)
  for (const std::string& name : chosen) {
    if (g.find(name) == nullptr)
      return error_message("policy: the partition saves " + name +
                           ", which the joint graph does not have: is the partition of this "
                           "joint graph?");
  }

  RegionCalls found = region_calls(joint);
  const std::vector<RegionCalls::Call>& calls = found.calls;
  std::unordered_map<const Node*, size_t> call_of;
  for (size_t i = 0; i < calls.size(); ++i)
    for (const Node* n : calls[i].nodes) call_of.emplace(n, i);
  ReproducingPolicy out;
  for (const Node* n : found.unseen) out.unseen.push_back(n->name());
  if (calls.empty())
    return error_message(
        "policy: the joint graph has no checkpoint region (no node has ac_graph_id): a "
        "selective-checkpointing policy applies inside torch.utils.checkpoint regions only");

  // Regions in the order the forward enters them; call indices per op within each.
  std::map<int64_t, size_t> region_index;
  for (const RegionCalls::Call& c : calls) region_index.emplace(c.region, 0);
  for (auto& [id, index] : region_index) {
    index = out.regions.size();
    out.regions.push_back({id, {}});
  }
  std::vector<std::pair<size_t, size_t>> placed;  // each call's region and place in it
  for (const RegionCalls::Call& c : calls) {
    size_t r = region_index.at(c.region);
    placed.emplace_back(r, out.regions[r].calls.size());
    PolicyCall call{c.op, c.index, true, {}, {}};
    // A recomputed view in a call of other ops (an in-place op's write-back) leaves the call
    // MUST_SAVE: PyTorch recomputes one of its views from the base whatever the tag.
    auto view = [](const Node* n) { return node_is(*n, OpCategory::View); };
    bool only_views = std::ranges::all_of(c.nodes, view);
    for (const Node* n : c.nodes) {
      call.nodes.push_back(n->name());
      if (chosen.contains(n->name())) call.saved.push_back(n->name());
      if (again.contains(n->name()) && (only_views || !view(n))) call.save = false;
    }
    out.regions[r].calls.push_back(std::move(call));
  }

  // The joint as PyTorch will trace it under the policy, and what its min-cut then saves.
  GraphModule tagged = joint.clone();
  std::unordered_map<std::string_view, bool> save_node;  // unseen ops: PREFER_RECOMPUTE
  for (const PolicyRegion& r : out.regions)
    for (const PolicyCall& c : r.calls)
      for (const std::string& name : c.nodes) save_node.emplace(name, c.save);
  for (const std::string& name : out.unseen) save_node.emplace(name, false);
  for (const Node* n : found.remade) save_node[n->name()] = false;
  for (Node* n : tagged.graph().nodes()) {
    if (auto it = save_node.find(n->name()); it != save_node.end())
      n->meta.recompute =
          it->second ? CheckpointPolicy::MustSave : CheckpointPolicy::PreferRecompute;
  }
  MinCutConfig plain = config;
  plain.memory_budget = 1.0;
  Expected<MinCutPartition> predicted = min_cut_partition(tagged, plain);
  if (!predicted) return predicted.errors();
  const PartitionReport& rep = predicted->report;
  out.rng_replayed = predicted->rng_replayed;

  std::set<std::string> predicted_set;
  std::unordered_map<std::string_view, std::string_view> why_saved, why_recomputed;
  for (const SavedValue& v : rep.saved_values) {
    predicted_set.insert(v.name);
    why_saved.emplace(v.name, v.reason);
  }
  for (const RecomputedNode& r : rep.recomputed) why_recomputed.emplace(r.name, r.reason);
  std::set<std::string_view> made_must_save(rep.tags_made_must_save.begin(),
                                            rep.tags_made_must_save.end());
  for (const Node* n : g.nodes()) {
    bool want = chosen.contains(n->name()), got = predicted_set.contains(n->name());
    if (want) out.chosen.push_back(n->name());
    if (got) out.predicted.push_back(n->name());
    if (want == got) continue;
    PolicyMismatch m{n->name(), want, got, ""};
    auto call = call_of.find(n);
    const PolicyCall* policy_call = nullptr;
    if (call != call_of.end()) {
      auto [r, at] = placed[call->second];
      policy_call = &out.regions[r].calls[at];
    }
    if (!n->meta.ac_graph_id()) {
      m.why =
          "outside every checkpoint region: PyTorch's min-cut decides it (checkpoint the code "
          "that computes it to let the policy choose)";
    } else if (std::ranges::find(found.remade, n) != found.remade.end()) {
      m.why =
          "a view of a tensor an in-place op changed, which functionalization made again after "
          "the policy tagged its call: PyTorch tags it PREFER_RECOMPUTE whatever the policy says "
          "(a choice can save the tensor it views)";
    } else if (call == call_of.end()) {
      m.why = "made by an op selective checkpointing never shows a policy (" +
              std::string(n->target().view()) + ")";
    } else if (got && made_must_save.contains(n->name())) {
      m.why =
          "a region's output that a later region reads: PyTorch's tag clean-up makes it "
          "MUST_SAVE";
    } else {
      if (got && !want && policy_call->save) {
        m.why =
            "its op call (" + policy_call->op + " #" + std::to_string(policy_call->index) +
            ") is MUST_SAVE: the choice does not recompute " +
            (policy_call->saved.empty() ? "it" : "the " + policy_call->saved.front() + " it makes");
      } else if (got) {
        m.why = "PyTorch's min-cut: " + std::string(why_saved[n->name()]);
      } else if (auto r = why_recomputed.find(n->name()); r != why_recomputed.end()) {
        m.why = "PyTorch's min-cut recomputes it: " + std::string(r->second);
      } else {
        m.why = "PyTorch's min-cut neither saves nor recomputes it: the backward does not need it";
      }
    }
    out.mismatches.push_back(std::move(m));
  }
  return out;
}

}  // namespace remat::partition
