#include "remat/partition/reproducing_policy.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "remat/partition/min_cut_partition.h"

namespace remat::partition {
namespace {

// Ops selective checkpointing never hands a policy (torch.utils.checkpoint's SAC_IGNORED_OPS:
// detach, and the metadata queries of functional tensors): they take no call index, and PyTorch
// tags their nodes PREFER_RECOMPUTE.
constexpr std::string_view kUnseenOps[] = {
    "aten.detach.default",
    "prim.device.default",
    "aten.dim.default",
    "aten.is_contiguous.default",
    "aten.is_contiguous.memory_format",
    "aten.is_non_overlapping_and_dense.default",
    "aten.is_strides_like_format.default",
    "aten.numel.default",
    "aten.size.default",
    "aten.storage_offset.default",
    "aten.stride.default",
    "aten.sym_numel.default",
    "aten.sym_size.default",
    "aten.sym_storage_offset.default",
    "aten.sym_stride.default",
};

bool unseen_op(std::string_view op) {
  return std::find(std::begin(kUnseenOps), std::end(kUnseenOps), op) != std::end(kUnseenOps);
}

/// The op the policy saw when PyTorch made this node (`original_aten` meta: a decomposition's
/// nodes all carry the op it decomposed), if the graph recorded it.
std::optional<std::string> original_aten(const Node& n) {
  for (const RawJsonField& f : n.meta.extras()) {
    if (f.key == "original_aten" && f.json.size() >= 2 && f.json.front() == '"' &&
        f.json.back() == '"')
      return f.json.substr(1, f.json.size() - 2);
  }
  return std::nullopt;
}

struct CallBuilder {
  RegionCalls::Call call;
  std::optional<int64_t> seq_nr;
  bool from_meta = false;     // `op` came from original_aten
  bool has_own_node = false;  // a node whose target is `op` itself
};

/// Whether `n` continues `call`: the same op call made it. Where the graph says which op made
/// each node (`original_aten`), consecutive nodes of one op with the same autograd sequence
/// number are one call, unless `n` is a second node of the op itself; otherwise every node is
/// its own call.
bool continues(const CallBuilder& call, const Node& n, int64_t region,
               const std::optional<std::string>& made_by) {
  if (!made_by || !call.from_meta || call.call.region != region || call.call.op != *made_by ||
      call.seq_nr != n.meta.seq_nr())
    return false;
  return !(call.has_own_node && n.target().view() == *made_by);
}

}  // namespace

RegionCalls region_calls(const Graph& g) {
  std::vector<CallBuilder> calls;
  std::unordered_map<const Node*, size_t> call_of;
  RegionCalls out;
  for (const Node* n : g.nodes()) {
    std::optional<int64_t> region = n->meta.ac_graph_id();
    if (n->op() != OpKind::CallFunction || !region) continue;
    if (is_getitem(*n) && !n->args().empty() && n->args()[0].is_node()) {
      auto parent = call_of.find(n->args()[0].as_node());
      if (parent != call_of.end()) {
        calls[parent->second].call.nodes.push_back(n);
        call_of.emplace(n, parent->second);
        continue;
      }
    }
    std::optional<std::string> made_by = original_aten(*n);
    std::string op = made_by.value_or(std::string(n->target().view()));
    if (unseen_op(op)) {
      out.unseen.push_back(n);
      continue;
    }
    if (calls.empty() || !continues(calls.back(), *n, *region, made_by))
      calls.push_back({{*region, op, {}}, n->meta.seq_nr(), made_by.has_value(), false});
    CallBuilder& call = calls.back();
    call.call.nodes.push_back(n);
    call.has_own_node = call.has_own_node || n->target().view() == op;
    call_of.emplace(n, calls.size() - 1);
  }
  for (CallBuilder& c : calls) out.calls.push_back(std::move(c.call));
  return out;
}

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

  RegionCalls found = region_calls(g);
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
  std::vector<std::map<std::string, int64_t>> counts(out.regions.size());
  std::vector<std::pair<size_t, size_t>> placed;  // each call's region and place in it
  for (const RegionCalls::Call& c : calls) {
    size_t r = region_index.at(c.region);
    placed.emplace_back(r, out.regions[r].calls.size());
    PolicyCall call{c.op, counts[r][c.op]++, true, {}, {}};
    for (const Node* n : c.nodes) {
      call.nodes.push_back(n->name());
      if (chosen.contains(n->name())) call.saved.push_back(n->name());
      if (again.contains(n->name())) call.save = false;
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
