#include "remat/partition/min_cut_partition.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <queue>

#include <absl/hash/hash.h>

#include "remat/ir/dead_code.h"
#include "remat/ir/graph.h"
#include "remat/ir/node_set.h"
#include "remat/ops/op_registry.h"
#include "remat/partition/knapsack.h"
#include "remat/partition/knapsack_evaluator.h"
#include "remat/partition/node_info.h"
#include "remat/partition/recompute_tags.h"
#include "remat/partition/rng_functionalization.h"
#include "remat/support/assert.h"

namespace remat::partition {
namespace {

bool is_getitem(const Node* n) { return n->target().view() == "operator.getitem"; }
bool is_view(const Node* n) { return node_is(*n, OpCategory::View); }
bool is_random(const Node* n) { return node_is(*n, OpCategory::Random); }
// recomputable_ops ∪ pointwise ∪ views (spec §6.5); getitem is in the list too.
bool is_recomputable(const Node* n) {
  if (is_getitem(n)) return true;
  const OpInfo* op = node_op(*n);
  return op && (op->is(OpCategory::Recomputable) || op->is(OpCategory::Pointwise) || op->is(OpCategory::View));
}
bool is_fusible_op(const Node* n) { return is_recomputable(n) || is_random(n); }
bool is_fusible(const Node* a, const Node* b) {
  if (b->target().view() == "aten.cat.default") return true;
  return is_fusible_op(a) && is_fusible_op(b);
}
bool is_materialized(const Node* n) {
  if (n->op() == OpKind::Placeholder) return true;
  for (const Node* u : n->users()) {
    if (!is_fusible(n, u)) return true;
  }
  return false;
}

// --- CSE ---

// Argument kinds CSE compares by value; a node reading any other kind (None, complex, tensor
// constants, reprs) is never merged.
bool mergeable(const Argument& a) {
  switch (a.kind()) {
    case ArgKind::Node:
    case ArgKind::Int:
    case ArgKind::Float:
    case ArgKind::Bool:
    case ArgKind::String:
    case ArgKind::Device:
    case ArgKind::Op:
    case ArgKind::Enum:
    case ArgKind::SymInt:
    case ArgKind::DType:
    case ArgKind::Layout:
    case ArgKind::MemoryFormat:
      return true;
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice:
      return std::all_of(a.elements().begin(), a.elements().end(), mergeable);
    case ArgKind::Dict:
      return std::all_of(a.dict_entries().begin(), a.dict_entries().end(), [](const DictEntry& e) { return mergeable(e.value); });
    default:
      return false;
  }
}

// Hashes what Argument's operator== compares (nodes by identity, floats bitwise).
size_t hash_argument(const Argument& a) {
  size_t h = absl::HashOf(static_cast<int>(a.kind()));
  switch (a.kind()) {
    case ArgKind::Node:
      return absl::HashOf(h, a.as_node());
    case ArgKind::Int:
      return absl::HashOf(h, a.as_int());
    case ArgKind::Float:
      return absl::HashOf(h, std::bit_cast<uint64_t>(a.as_float()));
    case ArgKind::Bool:
      return absl::HashOf(h, a.as_bool());
    case ArgKind::String:
    case ArgKind::Device:
    case ArgKind::Op:
    case ArgKind::Enum:
    case ArgKind::SymInt:
      return absl::HashOf(h, a.as_text().data());  // interned: one address per text
    case ArgKind::DType:
      return absl::HashOf(h, static_cast<int>(a.as_dtype()));
    case ArgKind::Layout:
      return absl::HashOf(h, static_cast<int>(a.as_layout()));
    case ArgKind::MemoryFormat:
      return absl::HashOf(h, static_cast<int>(a.as_memory_format()));
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice:
      for (const Argument& e : a.elements()) h = absl::HashOf(h, hash_argument(e));
      return h;
    case ArgKind::Dict:
      for (const DictEntry& e : a.dict_entries()) h = absl::HashOf(h, e.key, hash_argument(e.value));
      return h;
    default:
      return h;
  }
}

// A node as CSE sees it: its target, args and kwargs.
struct SameComputationHash {
  size_t operator()(const Node* n) const {
    size_t h = absl::HashOf(n->target().view().data());
    for (const Argument& a : n->args()) h = absl::HashOf(h, hash_argument(a));
    for (const Kwarg& kw : n->kwargs()) h = absl::HashOf(h, kw.key.view().data(), hash_argument(kw.value));
    return h;
  }
};
struct SameComputation {
  bool operator()(const Node* a, const Node* b) const {
    if (a->target() != b->target()) return false;
    auto x = a->args(), y = b->args();
    auto kx = a->kwargs(), ky = b->kwargs();
    return std::equal(x.begin(), x.end(), y.begin(), y.end()) && std::equal(kx.begin(), kx.end(), ky.begin(), ky.end());
  }
};

// --- the flow network ---

// Vertices are created on first use (so the network has exactly PyTorch's vertices, in its
// order) and found through per-node slots; edge reasons are indices into a short table.
class NetworkBuilder {
 public:
  NetworkBuilder(const GraphModule& joint, const NodeInfo& info, const MinCutConfig& config, const NodeSet& dont_ban)
      : joint_(joint),
        info_(info),
        config_(config),
        dont_ban_(dont_ban),
        vertex_in_(joint.graph(), -1),
        vertex_out_(joint.graph(), -1),
        banned_(joint.graph()),
        marks_(joint.graph()) {}

  FlowGraph& graph() { return g_; }
  int source() { return terminal(source_, "source"); }
  int sink() { return terminal(sink_, "sink"); }
  [[nodiscard]] const std::vector<BannedNode>& banned() const { return banned_list_; }
  NodeSet take_banned_nodes() { return std::move(banned_); }
  [[nodiscard]] const std::string& reason(int e) const { return reasons_[edge_reason_[e]]; }
  /// The node a cut edge saves: edge `v_in -> v_out` of a node's split.
  [[nodiscard]] const Node* saved_by(const FlowGraph::Edge& e) const {
    const Node* n = vertex_node_[e.from];
    return n && vertex_in_[n] == e.from && vertex_out_[n] == e.to ? n : nullptr;
  }

  void ban(const Node* n, std::string reason) {
    if (is_view(n) || must_recompute(*n) || banned_.contains(n) || dont_ban_.contains(n)) return;
    banned_.insert(n);
    banned_list_.push_back({n->name(), reason});
    reasons_.push_back("banned from recomputation: " + reason);
    int from = source();
    edge(from, in(n), kInfiniteCapacity, static_cast<int>(reasons_.size()) - 1);
  }

  std::optional<std::string> should_ban(const Node* n) const {
    if (n->op() != OpKind::CallFunction || is_getitem(n)) return std::nullopt;
    if (n->meta.recompute == CheckpointPolicy::MustSave) return "marked MUST_SAVE";
    if (config_.recompute_views && is_view(n)) return std::nullopt;
    if (config_.ban_recompute_not_in_allowlist) {
      if (!is_recomputable(n)) return "not in the recomputable-ops allowlist (" + std::string(n->target().view()) + ")";
    } else if (!node_op(*n)) {
      // Nothing says recomputing it is safe (it may be random or in-place): PyTorch's rule too.
      return "outside remat's op registry (" + std::string(n->target().view()) + ")";
    } else if (is_random(n) || node_op(*n)->is(OpCategory::ComputeIntensive)) {
      return is_random(n) ? "random op" : "compute-intensive op";
    }
    if (config_.ban_recompute_materialized_backward && materialized_backwards(n)) return "its output is materialized in the backward";
    if (config_.ban_recompute_reductions) {
      int64_t inputs = 0;
      for (const Argument& a : n->args()) {
        if (a.is_node()) inputs += value_bytes(*a.as_node());
      }
      if (4 * value_bytes(*n) < inputs) return "reduction op (output under a quarter of its inputs)";
    }
    return std::nullopt;
  }

  double capacity(const Node* n) const {
    if (n->meta.sym_value()) return 1;
    if (!n->meta.tensor()) return kInfiniteCapacity;  // tuple parents: never saved themselves
    if (config_.treat_parameters_as_free_to_save && info_.static_lifetime_inputs.contains(n)) return 0;
    if (config_.recompute_views && is_view(n)) return kInfiniteCapacity;
    int64_t dist = std::max<int64_t>(std::min<int64_t>(info_.dist_from_bw[n], 100), 1);
    auto w = static_cast<double>(static_cast<int64_t>(static_cast<double>(value_bytes(*n)) * std::pow(1.1, static_cast<double>(dist))));
    return is_materialized(n) ? w : 2 * w;
  }

  void build() {
    for (const Node* n : joint_.graph().nodes()) {
      if (n->op() == OpKind::Output) continue;
      if (info_.required_bw.contains(n)) {
        if (!info_.tangents_closure.contains(n)) {
          int from = out(n);
          edge(from, sink(), kInfiniteCapacity, kNeededInBackward);
        } else {
          int from = in(n);
          edge(from, sink(), kInfiniteCapacity, kDependsOnTangent);
          continue;
        }
      }
      if (must_recompute(*n)) {
        int from = in(n);
        edge(from, sink(), kInfiniteCapacity, kTaggedRecompute);
        continue;
      }
      if (n->op() == OpKind::Placeholder && !is_tangent(*n)) ban(n, "primal input");
      else if (info_.is_required_fw(n)) {
        if (auto reason = should_ban(n)) ban(n, *reason);
      }
      double c = capacity(n);
      int from = in(n);
      edge(from, out(n), c, std::isinf(c) ? kNotATensor : kSavingCost);
      for (const Node* u : n->users()) {
        int produced = out(n);
        edge(produced, in(u), kInfiniteCapacity, kDataDependency);
      }
    }
    if (config_.ban_recompute_used_far_apart) ban_used_far_apart();
    if (config_.ban_recompute_long_fusible_chains) ban_long_fusible_chains();
  }

 private:
  bool materialized_backwards(const Node* n) const {
    if (is_view(n)) return false;
    std::vector<const Node*> todo = {n};
    marks_.new_search();
    marks_.mark(n);
    while (!todo.empty()) {
      const Node* cur = todo.back();
      todo.pop_back();
      for (const Node* u : cur->users()) {
        if (!info_.is_required_fw(u) && !is_fusible(cur, u)) return true;
        if (is_view(u) && marks_.mark(u)) todo.push_back(u);
      }
    }
    return false;
  }

  using Entry = std::tuple<int64_t, const Node*, bool>;
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return std::get<0>(a) > std::get<0>(b); }
  };

  int64_t first_unfusible_use(const std::vector<const Node*>& start, int64_t max_range) const {
    std::priority_queue<Entry, std::vector<Entry>, Later> heap;
    marks_.new_search();
    for (const Node* s : start) {
      heap.emplace(info_.order(s), s, true);
      marks_.mark(s);
    }
    while (!heap.empty()) {
      auto [order, node, fusible] = heap.top();
      heap.pop();
      if (!fusible) return order;
      for (const Node* u : node->users()) {
        if (!info_.is_required_fw(u) || info_.order(u) > max_range || !marks_.mark(u)) continue;
        heap.emplace(info_.order(u), u, is_fusible(node, u));
      }
    }
    return max_range;
  }

  void ban_used_far_apart() {
    for (const Node* n : joint_.graph().nodes()) {
      if (!info_.is_required_fw(n)) continue;
      std::vector<const Node*> fw_users;
      int64_t max_order = -1;
      for (const Node* u : n->users()) {
        if (!info_.is_required_fw(u)) continue;
        fw_users.push_back(u);
        max_order = std::max(max_order, info_.order(u));
      }
      if (fw_users.empty()) continue;
      int64_t first = first_unfusible_use(fw_users, max_order);
      for (const Node* u : fw_users) {
        if (info_.order(u) > first && is_fusible(n, u) && !banned_.contains(u)) ban(u, "used far apart from " + n->name());
      }
    }
  }

  void ban_long_fusible_chains() {
    NodeSet visited(joint_.graph());
    for (const Node* start : joint_.graph().nodes()) {
      if (!info_.is_required_fw(start)) continue;
      int64_t start_order = info_.order(start);
      std::priority_queue<std::pair<int64_t, const Node*>, std::vector<std::pair<int64_t, const Node*>>, std::greater<>> heap;
      heap.emplace(start_order, start);
      while (!heap.empty()) {
        const Node* cur = heap.top().second;
        heap.pop();
        if (!visited.insert(cur)) continue;
        if (info_.order(cur) > start_order + 100 && heap.empty()) {
          ban(cur, "ends a long chain of fusible ops");
          break;
        }
        for (const Node* u : cur->users()) {
          if (info_.is_required_fw(u) && is_fusible(cur, u) && !banned_.contains(u)) heap.emplace(info_.order(u), u);
        }
      }
    }
  }

  enum Reason : int { kNeededInBackward, kDependsOnTangent, kTaggedRecompute, kNotATensor, kSavingCost, kDataDependency };
  int vertex(const Node* n, NodeMap<int>& vertices, const char* suffix) {
    int& v = vertices[n];
    if (v < 0) {
      v = g_.add_vertex(n->name() + suffix);
      vertex_node_.push_back(n);
    }
    return v;
  }
  int terminal(int& v, const char* name) {
    if (v < 0) {
      v = g_.add_vertex(name);
      vertex_node_.push_back(nullptr);
    }
    return v;
  }
  int in(const Node* n) { return vertex(n, vertex_in_, "_in"); }
  int out(const Node* n) { return vertex(n, vertex_out_, "_out"); }
  // Callers create `u` before `v`: vertices appear in the order PyTorch's add_edge calls add them.
  void edge(int u, int v, double capacity, int reason) {
    g_.add_edge(u, v, capacity);
    edge_reason_.push_back(reason);
  }

  const GraphModule& joint_;
  const NodeInfo& info_;
  const MinCutConfig& config_;
  const NodeSet& dont_ban_;
  FlowGraph g_;
  int source_ = -1, sink_ = -1;
  NodeMap<int> vertex_in_, vertex_out_;
  std::vector<const Node*> vertex_node_;  // per vertex; null for source and sink
  std::vector<int> edge_reason_;
  // Indexed by Reason, then one entry per ban.
  std::vector<std::string> reasons_ = {"must be computed in the backward", "depends on a tangent",
                                       "tagged for recomputation: cannot be saved", "cannot be saved (not a tensor)",
                                       "saving cost", "data dependency"};
  NodeSet banned_;
  std::vector<BannedNode> banned_list_;
  mutable NodeMarks marks_;  // for the searches of one node's users
};

}  // namespace

size_t eliminate_common_subexpressions(Graph& graph, std::vector<std::pair<std::string, std::string>>* merged) {
  absl::flat_hash_set<Node*, SameComputationHash, SameComputation> seen;
  seen.reserve(graph.size());  // growing would hash every node's arguments again at each rehash
  std::vector<Node*> duplicates;
  for (Node* n : graph.nodes()) {
    if (n->op() != OpKind::CallFunction || is_random(n)) continue;
    if (n->target().view().starts_with("aten.empty")) continue;
    bool comparable = std::all_of(n->args().begin(), n->args().end(), mergeable) &&
                      std::all_of(n->kwargs().begin(), n->kwargs().end(), [](const Kwarg& kw) { return mergeable(kw.value); });
    if (!comparable) continue;
    auto [it, fresh] = seen.insert(n);
    if (!fresh) {
      if (merged) merged->emplace_back(n->name(), (*it)->name());
      n->replace_all_uses_with(*it);
      duplicates.push_back(n);
    }
  }
  for (auto it = duplicates.rbegin(); it != duplicates.rend(); ++it) graph.erase(*it);
  return duplicates.size();
}

namespace {

// One min-cut of the network built with `config` (ban heuristics) and `dont_ban`.
struct Solved {
  std::vector<const Node*> saved, saved_sym;
  std::vector<BannedNode> banned;
  NodeSet banned_nodes;
  std::optional<double> cut_value;  ///< none when no cut chose the saved set
  FlowGraph network;
};

Expected<Solved> solve_once(const GraphModule& joint, const NodeInfo& info, const MinCutConfig& config,
                            const NodeSet& dont_ban) {
  NetworkBuilder net(joint, info, config, dont_ban);
  net.build();
  FlowGraph& fg = net.graph();
  MinCut cut = solve_min_cut(fg, net.source(), net.sink(), config.algorithm);
  if (cut.unbounded()) {
    std::string path;
    for (size_t i = 0; i + 1 < cut.infinite_path.size(); ++i) {
      int from = cut.infinite_path[i], to = cut.infinite_path[i + 1];
      std::string why;
      for (size_t e = 0; e < fg.edges().size(); ++e) {
        if (fg.edges()[e].from == from && fg.edges()[e].to == to && std::isinf(fg.edges()[e].capacity)) why = net.reason(static_cast<int>(e));
      }
      path += "\n  " + fg.names()[from] + " -> " + fg.names()[to] + ": " + why;
    }
    return error_message("min-cut partition: no finite cut exists: every edge of this path is infinite (a value "
                         "that can be neither saved nor recomputed):" + path);
  }
  Solved s;
  NodeSet cut_nodes(joint.graph());
  for (int e : cut.cut_edges) {
    const FlowGraph::Edge& edge = fg.edges()[e];
    const Node* n = net.saved_by(edge);
    REMAT_ASSERT(n != nullptr) << "cut edge " << fg.names()[edge.from] << " -> " << fg.names()[edge.to];
    cut_nodes.insert(n);
  }
  for (const Node* n : joint.graph().nodes()) {
    if (cut_nodes.contains(n)) (n->meta.sym_value() ? s.saved_sym : s.saved).push_back(n);
  }
  s.banned = net.banned();
  s.banned_nodes = net.take_banned_nodes();
  s.cut_value = cut.value;
  s.network = std::move(fg);
  return s;
}

int64_t total_bytes(const std::vector<const Node*>& nodes) {
  int64_t total = 0;
  for (const Node* n : nodes) total += value_bytes(*n);
  return total;
}

}  // namespace

Expected<MinCutPartition> min_cut_partition(const GraphModule& original, const MinCutConfig& config) {
  if (!(config.memory_budget >= 0 && config.memory_budget <= 1)) {
    return error_message("activation memory budget must be in [0, 1], not " + std::to_string(config.memory_budget));
  }
  if (Status shape = check_joint_shape(original); !shape) return shape.errors();
  // The cut weighs values by their sizes: inputs without metadata (PyTorch 1.13 printed no type
  // annotations) leave nothing to weigh.
  for (const Node* p : original.graph().placeholders()) {
    if (!p->meta.tensor() && !p->meta.sym_value() && !p->meta.tensor_tuple()) {
      return error_message("min-cut partition: input " + p->name() +
                           " has no tensor metadata, so the sizes the cut weighs are unknown (PyTorch 1.13's "
                           "readable text has no type annotations: partition its fxgraph-json, or use --strategy default)");
    }
  }
  StageTimer timer;
  GraphModule joint = original.clone();
  Graph& g = joint.graph();
  timer.lap("copy the joint graph");
  std::vector<std::string> notes;
  eliminate_dead_code(g);
  std::vector<std::pair<std::string, std::string>> merged;
  if (config.cse) {
    eliminate_common_subexpressions(g, &merged);
    if (!merged.empty()) notes.push_back("common-subexpression elimination merged " + std::to_string(merged.size()) + " nodes");
  }
  timer.lap("dead code and common subexpressions");
  std::vector<std::pair<std::string, std::string>> reasons;
  std::vector<std::string> made_must_save;
  if (has_recomputable_ops(g)) {
    for (Node* n : cleanup_recompute_tags(g, /*is_default_partition=*/false)) {
      reasons.emplace_back(n->name(), "boundary between checkpoint regions (tag clean-up made it MUST_SAVE)");
      made_must_save.push_back(n->name());
    }
  }
  NodeInfo info = classify_nodes(joint);
  timer.lap("tag clean-up and node classification");
  // Spec §7.2: the memory budget picks among cuts of decreasing heuristic caution, then a
  // knapsack over the banned values decides which may be recomputed after all.
  double budget = config.memory_budget;
  Solved chosen;
  PartitionStage stage = PartitionStage::Cut;
  if (budget == 0) {
    chosen.saved = info.inputs;
    stage = PartitionStage::InputsOnly;
    notes.push_back("memory budget 0: only the primals are saved; everything else is recomputed, MUST_SAVE values included (as PyTorch does)");
    // Except what nothing says is safe to run twice (1.13's in-place `bernoulli_` draws new
    // dropout masks): forward ops outside the registry that the backward may need.
    for (const Node* n : g.nodes()) {
      int64_t dist = info.dist_from_bw[n];
      if (n->op() != OpKind::CallFunction || is_getitem(n) || node_op(*n) || dist == 0 || dist >= kFarFromBackward) continue;
      chosen.saved.push_back(n);
      notes.push_back("memory budget 0: " + n->name() + " is saved all the same: " + std::string(n->target().view()) +
                      " is outside remat's op registry, so recomputing it is never assumed safe");
    }
  } else {
    auto s0 = solve_once(joint, info, config, NodeSet());
    if (!s0) return std::move(s0).take_errors();
    chosen = std::move(*s0);
    double lo = static_cast<double>(total_bytes(info.inputs)), hi = static_cast<double>(total_bytes(chosen.saved));
    auto ratio = [&](const Solved& s) { return (static_cast<double>(total_bytes(s.saved)) - lo) / (hi - lo); };
    if (budget < 1 && hi > lo) {
      MinCutConfig relaxed = config;
      relaxed.ban_recompute_used_far_apart = relaxed.ban_recompute_long_fusible_chains = relaxed.ban_recompute_materialized_backward = false;
      auto s1 = solve_once(joint, info, relaxed, NodeSet());
      if (!s1) return std::move(s1).take_errors();
      if (ratio(*s1) < budget) {
        chosen = std::move(*s1);
        stage = PartitionStage::RelaxedBans;
        notes.push_back("memory budget " + std::to_string(budget) + ": the ban heuristics for far-apart uses, long fusible chains and materialized backward values are off");
      } else {
        MinCutConfig aggressive = relaxed;
        aggressive.ban_recompute_not_in_allowlist = false;
        auto s2 = solve_once(joint, info, aggressive, NodeSet());
        if (!s2) return std::move(s2).take_errors();
        if (ratio(*s2) < budget) {
          chosen = std::move(*s2);
          stage = PartitionStage::Aggressive;
          notes.push_back("memory budget " + std::to_string(budget) + ": aggressive recomputation (allowlist off)");
        } else {
          // The knapsack: which banned values to keep saved within the budget.
          std::vector<const Node*> candidates, must_save;
          for (const Node* n : g.nodes()) {
            // Inputs share storage with themselves: saving them costs nothing extra (spec §7.2.7).
            if (!s2->banned_nodes.contains(n) || n->op() == OpKind::Placeholder || info.dist_from_bw[n] >= kFarFromBackward) continue;
            bool keep = n->meta.recompute == CheckpointPolicy::MustSave || node_op(*n) == nullptr;
            (keep ? must_save : candidates).push_back(n);
          }
          std::stable_sort(candidates.begin(), candidates.end(), [](const Node* a, const Node* b) { return value_bytes(*a) > value_bytes(*b); });
          if (candidates.empty()) {
            // No cut describes this partition: its bans, cut value and network are not the
            // earlier stages' (the report says what produced the saved set).
            chosen = Solved{};
            chosen.saved = info.inputs;
            chosen.saved.insert(chosen.saved.end(), must_save.begin(), must_save.end());
            stage = PartitionStage::InputsAndMustSave;
            notes.push_back("memory budget " + std::to_string(budget) + ": no banned value is left for the knapsack; only the inputs and " +
                            std::to_string(must_save.size()) +
                            " values that cannot be recomputed (MUST_SAVE, or outside remat's op registry) are saved");
          } else {
            std::vector<double> memory, runtime;
            for (const Node* n : candidates) {
              memory.push_back(static_cast<double>(value_bytes(*n)) / (hi - lo));
              runtime.push_back(static_cast<double>(std::max<int64_t>(flop_counter_flops(*n), 1)));
            }
            double capacity = budget;
            if (config.knapsack == KnapsackSolver::Dynamic) {
              KnapsackEvaluator evaluator(knapsack_items(g, candidates, memory, runtime));
              capacity = evaluator.knee_point_budget(dp_knapsack, budget, 0.001, 100);
              notes.push_back("dynamic memory budget: the knee of the saved-memory / recompute-runtime curve is at " + std::to_string(capacity));
            }
            KnapsackResult k = config.knapsack == KnapsackSolver::Greedy ? greedy_knapsack(memory, runtime, capacity)
                               : config.knapsack == KnapsackSolver::Exact ? exact_knapsack(memory, runtime, capacity)
                                                                          : dp_knapsack(memory, runtime, capacity);
            NodeSet dont_ban(g);
            for (int i : k.recompute) dont_ban.insert(candidates[i]);
            auto s3 = solve_once(joint, info, aggressive, dont_ban);
            if (!s3) return std::move(s3).take_errors();
            chosen = std::move(*s3);
            stage = PartitionStage::Knapsack;
            notes.push_back("memory budget " + std::to_string(budget) + ": the knapsack lets " + std::to_string(k.recompute.size()) +
                            " of " + std::to_string(candidates.size()) + " banned values be recomputed");
          }
        }
      }
    }
  }
  std::vector<const Node*>& saved = chosen.saved;
  std::vector<const Node*>& saved_sym = chosen.saved_sym;
  std::sort(saved.begin(), saved.end(), [](const Node* a, const Node* b) { return a->is_before(b); });
  timer.lap("flow network and min-cut");
  JointOrigins origins;
  auto graphs = extract_forward_backward(joint, saved, saved_sym, &origins);
  timer.lap("forward and backward extraction");
  if (!graphs) return std::move(graphs).take_errors();
  absl::flat_hash_set<std::string> explained(made_must_save.begin(), made_must_save.end());
  for (const Node* n : saved) {
    if (explained.contains(n->name())) continue;
    std::string why = n->meta.recompute == CheckpointPolicy::MustSave ? "marked MUST_SAVE"
                      : chosen.banned_nodes.contains(n)                 ? "cheapest cut: recomputing it is banned"
                                                                         : "cheapest cut: saving it costs less than recomputing what needs it";
    if (n->op() == OpKind::Placeholder) why = "a primal the backward reads";
    reasons.emplace_back(n->name(), why);
  }
  std::vector<std::string> rng = functionalize_recomputed_rng(*graphs);
  for (const std::string& n : rng) notes.push_back("random op " + n + " is recomputed with the forward's RNG state (run_and_save_rng_state / run_with_rng_state)");
  MinCutPartition result;
  result.report = describe_partition(joint, *graphs, origins, "min-cut", reasons);
  result.report.stage = stage;
  result.report.cut_value = chosen.cut_value;
  result.report.banned = chosen.banned;
  result.report.notes = std::move(notes);
  result.report.tags_made_must_save = std::move(made_must_save);
  result.graphs = std::move(*graphs);
  result.network = std::move(chosen.network);
  result.merged = std::move(merged);
  result.rng_replayed = std::move(rng);
  timer.lap("report");
  result.stages = timer.take();
  return result;
}

}  // namespace remat::partition
