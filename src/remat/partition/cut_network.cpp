#include "remat/partition/cut_network.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <string>
#include <tuple>

#include "remat/ops/op_registry.h"
#include "remat/partition/op_classes.h"
#include "remat/passes/recompute_tag_cleanup.h"
#include "remat/support/assert.h"
#include "remat/support/saturating_math.h"

namespace remat::partition {
namespace {

// Vertices are created on first use (so the network has exactly PyTorch's vertices, in its
// order) and found through per-node slots; edge reasons are indices into a short table.
class NetworkBuilder {
 public:
  NetworkBuilder(const GraphModule& joint, const NodeInfo& info, const MinCutConfig& config,
                 const NodeSet& dont_ban)
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
    if (info_.ops.view(n) || passes::must_recompute(*n) || banned_.contains(n) ||
        dont_ban_.contains(n))
      return;
    banned_.insert(n);
    banned_list_.push_back({n->name(), reason});
    reasons_.push_back("banned from recomputation: " + reason);
    int from = source();
    edge(from, in(n), kInfiniteCapacity, static_cast<int>(reasons_.size()) - 1);
  }

  std::optional<std::string> should_ban(const Node* n) const {
    if (n->op() != OpKind::CallFunction || is_getitem(*n)) return std::nullopt;
    if (n->meta.recompute == CheckpointPolicy::MustSave) return "marked MUST_SAVE";
    if (config_.recompute_views && info_.ops.view(n)) return std::nullopt;
    // A lifted tensor constant's copy is never banned, as in PyTorch: it is cheap, and banned it
    // would be saved wherever the backward reads a constant (Falcon's rotary scale).
    std::string_view target = n->target().view();
    if (target == "aten.lift_fresh_copy.default" || target == "aten.lift_fresh.default")
      return std::nullopt;
    if (config_.ban_recompute_not_in_allowlist) {
      if (!info_.ops.recomputable(n))
        return "not in the recomputable-ops allowlist (" + std::string(n->target().view()) + ")";
    } else if (is_torch_random_op(n->target().view())) {
      return "random op";
    } else if (is_torch_compute_intensive_op(n->target().view())) {
      return "compute-intensive op";
    } else if (recompute_never_assumed_safe(*n, config_.ban_recompute_unknown_ops)) {
      return "outside remat's op registry (" + std::string(n->target().view()) + ")";
    } else if (config_.ban_recompute_unknown_ops && info_.ops.random(n)) {
      return "random op";  // remat's registry knows more random ops than PyTorch's list
    }
    if (config_.ban_recompute_materialized_backward && materialized_backwards(n))
      return "its output is materialized in the backward";
    if (config_.ban_recompute_reductions) {
      int64_t inputs = 0;
      for (const Argument& a : n->args()) {
        if (a.is_node()) inputs = sat_add(inputs, value_bytes(*a.as_node()));
      }
      if (4 * value_bytes(*n) < inputs)
        return "reduction op (output under a quarter of its inputs)";
    }
    return std::nullopt;
  }

  double capacity(const Node* n) const {
    if (n->meta.sym_value()) return 1;
    if (!n->meta.tensor()) return kInfiniteCapacity;  // tuple parents: never saved themselves
    if (config_.treat_parameters_as_free_to_save && info_.static_lifetime_inputs.contains(n))
      return 0;
    if (config_.recompute_views && info_.ops.view(n)) return kInfiniteCapacity;
    int64_t dist = std::max<int64_t>(std::min<int64_t>(info_.dist_from_bw[n], 100), 1);
    auto w = static_cast<double>(static_cast<int64_t>(static_cast<double>(value_bytes(*n)) *
                                                      std::pow(1.1, static_cast<double>(dist))));
    return info_.ops.materialized(n) ? w : 2 * w;
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
      if (passes::must_recompute(*n)) {
        int from = in(n);
        edge(from, sink(), kInfiniteCapacity, kTaggedRecompute);
        continue;
      }
      if (n->op() == OpKind::Placeholder && !is_tangent(*n))
        ban(n, std::string(records::kPrimalInputBan));
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
    if (info_.ops.view(n)) return false;
    std::vector<const Node*> todo = {n};
    marks_.new_search();
    marks_.mark(n);
    while (!todo.empty()) {
      const Node* cur = todo.back();
      todo.pop_back();
      for (const Node* u : cur->users()) {
        if (!info_.is_required_fw(u) && !info_.ops.fusible(cur, u)) return true;
        if (info_.ops.view(u) && marks_.mark(u)) todo.push_back(u);
      }
    }
    return false;
  }

  using Entry = std::tuple<int64_t, const Node*, bool>;
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return std::get<0>(a) > std::get<0>(b);
    }
  };

  // A binary heap in a reused vector (what std::priority_queue does, without a fresh
  // allocation for each of the many searches).
  int64_t first_unfusible_use(const std::vector<const Node*>& start, int64_t max_range) const {
    std::vector<Entry>& heap = heap_;
    heap.clear();
    auto push = [&](int64_t order, const Node* n, bool fusible) {
      heap.emplace_back(order, n, fusible);
      std::push_heap(heap.begin(), heap.end(), Later());
    };
    marks_.new_search();
    for (const Node* s : start) {
      push(info_.order(s), s, true);
      marks_.mark(s);
    }
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), Later());
      auto [order, node, fusible] = heap.back();
      heap.pop_back();
      if (!fusible) return order;
      for (const Node* u : node->users()) {
        if (!info_.is_required_fw(u) || info_.order(u) > max_range || !marks_.mark(u)) continue;
        push(info_.order(u), u, info_.ops.fusible(node, u));
      }
    }
    return max_range;
  }

  void ban_used_far_apart() {
    std::vector<const Node*> fw_users;
    for (const Node* n : joint_.graph().nodes()) {
      if (!info_.is_required_fw(n)) continue;
      fw_users.clear();
      int64_t max_order = -1;
      for (const Node* u : n->users()) {
        if (!info_.is_required_fw(u)) continue;
        fw_users.push_back(u);
        max_order = std::max(max_order, info_.order(u));
      }
      if (fw_users.empty()) continue;
      int64_t first = first_unfusible_use(fw_users, max_order);
      for (const Node* u : fw_users) {
        if (info_.order(u) > first && info_.ops.fusible(n, u) && !banned_.contains(u))
          ban(u, "used far apart from " + n->name());
      }
    }
  }

  void ban_long_fusible_chains() {
    NodeSet visited(joint_.graph());
    for (const Node* start : joint_.graph().nodes()) {
      if (!info_.is_required_fw(start)) continue;
      int64_t start_order = info_.order(start);
      std::priority_queue<std::pair<int64_t, const Node*>,
                          std::vector<std::pair<int64_t, const Node*>>, std::greater<>>
          heap;
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
          if (info_.is_required_fw(u) && info_.ops.fusible(cur, u) && !banned_.contains(u))
            heap.emplace(info_.order(u), u);
        }
      }
    }
  }

  enum Reason : int {
    kNeededInBackward,
    kDependsOnTangent,
    kTaggedRecompute,
    kNotATensor,
    kSavingCost,
    kDataDependency
  };
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
  std::vector<std::string> reasons_ = {"must be computed in the backward",
                                       "depends on a tangent",
                                       "tagged for recomputation: cannot be saved",
                                       "cannot be saved (not a tensor)",
                                       "saving cost",
                                       "data dependency"};
  NodeSet banned_;
  std::vector<BannedNode> banned_list_;
  mutable NodeMarks marks_;  // for the searches of one node's users
  mutable std::vector<Entry> heap_;
};

}  // namespace

Expected<CutSolution> solve_cut(const GraphModule& joint, const NodeInfo& info,
                                const MinCutConfig& config, const NodeSet& dont_ban) {
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
        if (fg.edges()[e].from == from && fg.edges()[e].to == to &&
            std::isinf(fg.edges()[e].capacity))
          why = net.reason(static_cast<int>(e));
      }
      path += "\n  " + fg.names()[from] + " -> " + fg.names()[to] + ": " + why;
    }
    return error_message(
        "min-cut partition: no finite cut exists: every edge of this path is infinite (a value "
        "that can be neither saved nor recomputed):" +
        path);
  }
  CutSolution s;
  NodeSet cut_nodes(joint.graph());
  for (int e : cut.cut_edges) {
    const FlowGraph::Edge& edge = fg.edges()[e];
    const Node* n = net.saved_by(edge);
    REMAT_ASSERT(n != nullptr) << "cut edge " << fg.names()[edge.from] << " -> "
                               << fg.names()[edge.to];
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

}  // namespace remat::partition
