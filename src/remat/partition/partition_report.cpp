#include "remat/partition/partition_report.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "remat/fxtext/tensor_annotation.h"
#include "remat/ir/graph.h"
#include "remat/ir/node_set.h"
#include "remat/ops/op_registry.h"
#include "remat/partition/memory_timeline.h"
#include "remat/support/assert.h"
#include "remat/support/json_writer.h"

namespace remat::partition {
namespace {

std::string shape_text(const Node& n) {
  const TensorMeta* t = n.meta.tensor();
  if (t == nullptr) return "";
  std::vector<std::string> sizes;
  for (const SymInt& d : t->sizes())
    sizes.push_back(d.is_symbolic() ? std::string(d.expression()) : std::to_string(d.value()));
  return fxtext::format_tensor_annotation(t->dtype, sizes);
}

void write_curve(json::JsonWriter& w, const TimelineCurve& c) {
  w.begin_object(json::Layout::Block)
      .field("label", c.label)
      .field("steps", static_cast<uint64_t>(c.steps))
      .field("forward_steps", static_cast<uint64_t>(c.forward_steps))
      .field("peak_bytes", c.peak_bytes)
      .field("peak_step", static_cast<uint64_t>(c.peak_step))
      .field("peak_node", c.peak_node)
      .key("samples")
      .begin_array(json::Layout::Block);
  for (const TimelineSample& s : c.samples) {
    w.begin_object()
        .field("step", static_cast<uint64_t>(s.step))
        .field("live", s.live)
        .field("node", s.node)
        .field("bytes", s.bytes);
    if (!s.largest.empty()) {
      w.field("alive", static_cast<uint64_t>(s.alive)).key("largest").begin_array();
      for (const auto& [name, bytes] : s.largest)
        w.begin_array().value(name).value(bytes).end_array();
      w.end_array();
    }
    w.end_object();
  }
  w.end_array().end_object();
}

/// `first, last, "first name", "last name"`, inside an array.
void write_span(json::JsonWriter& w, const NodeSpan& s) {
  w.value(static_cast<uint64_t>(s.first))
      .value(static_cast<uint64_t>(s.last))
      .value(s.first_name)
      .value(s.last_name);
}

void write_charts(json::JsonWriter& w, const PartitionCharts& c) {
  w.key("charts").begin_object(json::Layout::Block).key("memory").begin_array(json::Layout::Block);
  for (const TimelineCurve& curve : c.memory) write_curve(w, curve);
  w.end_array().key("budget").begin_array(json::Layout::Block);
  for (const BudgetPoint& p : c.budget) {
    w.begin_object()
        .field("budget", p.budget)
        .field("saved_bytes", p.saved_bytes)
        .field("recompute_flops", p.recompute_flops)
        .field("saved_values", static_cast<uint64_t>(p.saved_values))
        .field("stage", p.stage)
        .end_object();
  }
  w.end_array();
  if (c.chosen) w.field("chosen", static_cast<uint64_t>(*c.chosen));
  if (c.knee) w.field("knee", static_cast<uint64_t>(*c.knee));
  const RegionMap& m = c.regions;
  w.key("regions").begin_object(json::Layout::Block).field("nodes", static_cast<uint64_t>(m.nodes));
  w.key("regions").begin_array();
  for (const RegionSpan& r : m.regions) {
    w.begin_array().value(r.id);
    write_span(w, r.span);
    w.end_array();
  }
  w.end_array().key("saved").begin_array();
  for (const auto& [index, name] : m.saved)
    w.begin_array().value(static_cast<uint64_t>(index)).value(name).end_array();
  w.end_array().key("recomputed").begin_array();
  for (const NodeSpan& s : m.recomputed) {
    w.begin_array();
    write_span(w, s);
    w.end_array();
  }
  w.end_array().end_object();
  if (!c.notes.empty()) w.key("notes").array(c.notes);
  w.end_object();
}

}  // namespace

std::string_view stage_name(PartitionStage stage) {
  switch (stage) {
    case PartitionStage::Cut:
      return "min-cut";
    case PartitionStage::RelaxedBans:
      return "min-cut without the far-apart, fusible-chain and materialized-backward bans";
    case PartitionStage::Aggressive:
      return "min-cut with aggressive recomputation (no bans but the hard ones)";
    case PartitionStage::Knapsack:
      return "min-cut after the knapsack un-banned values";
    case PartitionStage::InputsAndMustSave:
      return "the inputs and MUST_SAVE values (nothing left for the knapsack)";
    case PartitionStage::InputsOnly:
      return "the inputs only (memory budget 0)";
    case PartitionStage::Default:
      return "default partition";
  }
  return "?";
}

int64_t value_bytes(const Node& n) {
  if (const TensorMeta* t = n.meta.tensor()) return t->estimated_nbytes().value_or(0);
  int64_t total = 0;
  if (const auto* tuple = n.meta.tensor_tuple()) {
    for (const auto& e : *tuple) total += e ? e->estimated_nbytes().value_or(0) : 0;
  }
  return total;
}

const Node& storage_root(const Node& n) {
  const Node* at = &n;
  while (at->op() == OpKind::CallFunction && !at->args().empty() && at->args()[0].is_node() &&
         (node_is(*at, OpCategory::View) || at->target().view() == "aten.detach.default" ||
          at->target().view() == "aten._unsafe_view.default")) {
    at = at->args()[0].as_node();
  }
  return *at;
}

PartitionReport describe_partition(
    const GraphModule& joint, const ForwardBackward& graphs, const JointOrigins& origins,
    std::string strategy, const std::vector<std::pair<std::string, std::string>>& reasons) {
  PartitionReport r;
  r.strategy = std::move(strategy);
  absl::flat_hash_map<std::string, std::string> why(reasons.begin(), reasons.end());
  REMAT_ASSERT(origins.saved_values.size() == graphs.saved_values.size())
      << "origins of another partition";
  for (size_t i = 0; i < graphs.saved_values.size(); ++i) {
    const std::string& name = graphs.saved_values[i];
    const Node& joint_node = *origins.saved_values[i];
    int64_t bytes = value_bytes(joint_node);
    auto it = why.find(name);
    r.saved_values.push_back({name, bytes, it == why.end() ? "read by the backward" : it->second,
                              shape_text(joint_node), joint_node.meta.ac_graph_id(),
                              storage_root(joint_node).op() == OpKind::Placeholder});
    r.saved_bytes_total += bytes;
  }
  NodeSet storages(joint.graph());
  for (const Node* n : origins.saved_values) {
    const Node& root = storage_root(*n);
    if (root.op() != OpKind::Placeholder && storages.insert(&root))
      r.activation_bytes += value_bytes(root);
  }
  r.saved_symints = graphs.saved_symints;
  // Recomputed: what the backward computes again, i.e. what both graphs compute (PyTorch's
  // recomputed_in_bw): a backward node whose joint node the forward copies too, or (a node a
  // later pass made in the forward, such as the RNG state's) that shares a name with one. Only
  // the graphs decide it, not partitioner tags, which the readable text does not carry: the
  // same joint gives the same report from JSON or from text.
  NodeSet in_forward(joint.graph());
  absl::flat_hash_set<std::string_view> made_in_forward;
  for (const Node* n : graphs.forward.graph().nodes()) {
    if (const Node* j = JointOrigins::of(origins.forward, n))
      in_forward.insert(j);
    else if (n->op() != OpKind::Output)  // the backward's own output holds that name
      made_in_forward.insert(n->name());
  }
  for (const Node* n : graphs.backward.graph().nodes()) {
    if (n->op() != OpKind::CallFunction) continue;
    const Node* j = JointOrigins::of(origins.backward, n);
    if (!(j && in_forward.contains(j)) && !made_in_forward.contains(n->name())) continue;
    std::string reason =
        j && j->meta.recompute == CheckpointPolicy::MustSave && node_is(*n, OpCategory::View)
            ? "a view: recomputing it is free (PyTorch never bans views, MUST_SAVE ones included)"
        : j && j->meta.recompute && is_recompute(*j->meta.recompute)
            ? "tagged " + std::string(policy_name(*j->meta.recompute)) + " (checkpoint region " +
                  (j->meta.ac_graph_id() ? std::to_string(*j->meta.ac_graph_id()) : "-") + ")"
            : "cheaper to recompute from saved values than to save";
    int64_t flops = node_flops(*n);
    r.recomputed.push_back({n->name(), std::string(n->target().view()), reason, flops});
    r.recompute_flops += flops;
  }
  r.peak_memory_bytes = peak_live_bytes(graphs);
  return r;
}

std::string PartitionReport::text() const {
  std::string out = fmt::format(
      "partition ({}): {} saved values, {} bytes; {} recomputed nodes, {} FLOPs\n", strategy,
      saved_values.size(), saved_bytes_total, recomputed.size(), recompute_flops);
  if (stage != PartitionStage::Default) out += fmt::format("chosen by: {}\n", stage_name(stage));
  if (cut_value) out += fmt::format("cut value: {}\n", *cut_value);
  out +=
      fmt::format("activation memory (storage kept for the backward beyond the inputs): {} bytes\n",
                  activation_bytes);
  out +=
      fmt::format("peak memory estimate (forward, then backward): {} bytes\n", peak_memory_bytes);
  for (const std::string& n : notes) out += "note: " + n + "\n";
  out += "saved:\n";
  for (const SavedValue& v : saved_values)
    out += fmt::format("  {:<24} {:>12} bytes  {}\n", v.name, v.bytes, v.reason);
  for (const std::string& s : saved_symints)
    out += fmt::format("  {:<24} {:>12}        symbolic size\n", s, "");
  out += "recomputed in the backward:\n";
  for (const RecomputedNode& n : recomputed)
    out += fmt::format("  {:<24} {:<32} {}\n", n.name, n.target, n.reason);
  if (!banned.empty()) {
    out += "banned from recomputation:\n";
    for (const BannedNode& b : banned) out += fmt::format("  {:<24} {}\n", b.name, b.reason);
  }
  return out;
}

std::string PartitionReport::json() const {
  std::string out;
  json::JsonWriter w(out);
  w.begin_object(json::Layout::Block)
      .field("schema", kPartitionReportSchema)
      .field("strategy", strategy)
      .field("stage", stage_name(stage))
      .key("saved_values")
      .begin_array(json::Layout::Block);
  for (const SavedValue& v : saved_values) {
    w.begin_object().field("name", v.name).field("bytes", v.bytes).field("reason", v.reason);
    if (!v.shape.empty()) w.field("shape", v.shape);
    if (v.region) w.field("region", *v.region);
    if (v.input) w.field("input", true);
    w.end_object();
  }
  w.end_array()
      .key("saved_symints")
      .array(saved_symints)
      .field("saved_bytes_total", saved_bytes_total)
      .field("activation_bytes", activation_bytes)
      .key("recomputed")
      .begin_array(json::Layout::Block);
  for (const RecomputedNode& n : recomputed) {
    w.begin_object()
        .field("name", n.name)
        .field("target", n.target)
        .field("flops", n.flops)
        .field("reason", n.reason)
        .end_object();
  }
  w.end_array().key("banned").begin_array(json::Layout::Block);
  for (const BannedNode& b : banned)
    w.begin_object().field("name", b.name).field("reason", b.reason).end_object();
  w.end_array();
  if (cut_value) w.field("cut_value", *cut_value);
  w.field("recompute_flops", recompute_flops)
      .field("peak_memory_bytes", peak_memory_bytes)
      .key("notes")
      .array(notes);
  if (charts) write_charts(w, *charts);
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace remat::partition
