#include "remat/partition/memory_timeline.h"

#include <algorithm>
#include <string_view>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "remat/ir/node_set.h"
#include "remat/partition/value_bytes.h"
#include "remat/records/live_storage.h"
#include "remat/support/saturating_math.h"

namespace remat::partition {
namespace {

/// The step's inputs (parameters, the batch) are held by the caller from the forward's start to
/// the backward's end, used or not: the forward's placeholders, and the backward's of the same
/// name. `outside` is what they weigh beyond the placeholders of the graph walked.
struct StepInputs {
  absl::flat_hash_set<std::string_view> names;
  /// Saved values in host memory between the graphs (ForwardBackward::offloaded): the forward
  /// frees them after their last use there, the backward places them at their first use.
  absl::flat_hash_set<std::string_view> offloaded;
  int64_t outside = 0;
  /// Of the backward's inputs that the forward saved as views: the forward value whose storage
  /// they live in (a transposed weight is the weight's storage).
  absl::flat_hash_map<std::string_view, std::string_view> saved_views;
};

/// Runs one graph's schedule through records::LiveStorage (which says how storage is counted):
/// `on_step(node, storage)` for its inputs (node nullptr) and after each call, values dying
/// after their last use.
template <class OnStep>
void walk_graph(const Graph& g, const StepInputs& inputs, bool track_alive, OnStep&& on_step) {
  records::LiveStorage storage(g.id_bound(), track_alive);
  storage.add_outside(inputs.outside);
  NodeMap<size_t> uses(g, 0);
  std::vector<Node*> ins;
  auto place = [&](const Node* n) {
    const Node& root = storage_root(*n);
    if (&root != n)
      storage.alias(n->id(), root.id());
    else if (is_getitem(*n) && n->args()[0].is_node())
      storage.take_from(n->id(), n->args()[0].as_node()->id(), value_bytes(*n));
    else
      storage.allocate(n->id(), value_bytes(*n));
  };
  std::vector<const Node*> views;
  NodeSet in_host(g);  // offloaded inputs not yet brought back
  for (const Node* n : g.nodes()) {
    uses[n] = n->users().size();
    if (inputs.offloaded.contains(n->name())) {
      if (n->op() == OpKind::Placeholder) {
        in_host.insert(n);
        continue;
      }
      for (const Node* u : n->users()) uses[n] -= u->op() == OpKind::Output ? 1 : 0;
    }
    if (n->op() != OpKind::Placeholder) continue;
    if (inputs.saved_views.contains(n->name()))
      views.push_back(n);  // once the storage it views is placed
    else if (inputs.names.contains(n->name()))
      storage.hold(n->id(), value_bytes(*n));
    else
      place(n);
  }
  for (const Node* n : views) {
    std::string_view base = inputs.saved_views.at(n->name());
    const Node* in_graph = g.find(base);
    bool here = in_graph != nullptr && in_graph->op() == OpKind::Placeholder;
    storage.saved_view(n->id(), here ? std::optional<size_t>(in_graph->id()) : std::nullopt,
                       inputs.names.contains(base), value_bytes(*n));
  }
  on_step(nullptr, storage);
  for (const Node* n : g.nodes()) {
    if (n->op() != OpKind::CallFunction) continue;
    n->collect_input_nodes(ins);
    for (Node* in : ins)
      if (in_host.contains(in)) {
        in_host.erase(in);
        place(in);
      }
    place(n);
    on_step(n, storage);
    if (uses[n] == 0) storage.release(n->id());  // dead code (or offloaded): freed once it ran
    for (Node* in : ins)
      if (uses[in] > 0 && --uses[in] == 0) storage.release(in->id());
  }
}

/// Walks the forward then the backward, the step's inputs held throughout.
template <class OnStep>
void walk_partition(const ForwardBackward& graphs, bool track_alive, OnStep&& on_step) {
  StepInputs forward, backward;
  for (const Node* p : graphs.forward.graph().placeholders()) forward.names.insert(p->name());
  forward.offloaded.insert(graphs.offloaded.begin(), graphs.offloaded.end());
  backward.offloaded = forward.offloaded;
  walk_graph(graphs.forward.graph(), forward, track_alive, on_step);
  // The backward's own placeholders count there; the step's other inputs weigh from outside.
  backward.names = forward.names;
  absl::flat_hash_set<std::string_view> in_backward;
  for (const Node* p : graphs.backward.graph().placeholders()) in_backward.insert(p->name());
  for (const Node* p : graphs.forward.graph().placeholders())
    if (!in_backward.contains(p->name()))
      backward.outside = sat_add(backward.outside, value_bytes(*p));
  for (const Node* n : graphs.forward.graph().nodes()) {
    const Node& root = storage_root(*n);
    if (&root != n && in_backward.contains(n->name()))
      backward.saved_views.emplace(n->name(), root.name());
  }
  walk_graph(graphs.backward.graph(), backward, track_alive, on_step);
}

}  // namespace

MemoryTimeline memory_timeline(const ForwardBackward& graphs) {
  MemoryTimeline t;
  walk_partition(graphs, false, [&](const Node* n, const records::LiveStorage& s) {
    if (n == nullptr && !t.steps.empty())
      t.forward_steps = t.steps.size();  // the backward's inputs
    if (s.live() > t.peak_bytes()) t.peak = t.steps.size();
    t.steps.push_back({n, s.live()});
  });
  return t;
}

int64_t peak_live_bytes(const ForwardBackward& graphs) {
  int64_t peak = 0;
  walk_partition(graphs, false, [&](const Node*, const records::LiveStorage& s) {
    peak = std::max(peak, s.live());
  });
  return peak;
}

std::vector<AliveSnapshot> alive_at(const ForwardBackward& graphs, const std::vector<size_t>& steps,
                                    size_t largest) {
  std::vector<AliveSnapshot> out;
  size_t step = 0, next = 0;
  // Node ids are per graph: the step's first node (nullptr, the inputs) says which graph it is.
  const Graph* g = nullptr;
  std::vector<const Node*> by_id;
  walk_partition(graphs, true, [&](const Node* n, const records::LiveStorage& storage) {
    if (n == nullptr) {
      g = g == nullptr ? &graphs.forward.graph() : &graphs.backward.graph();
      by_id.assign(g->id_bound(), nullptr);
      for (const Node* m : g->nodes()) by_id[m->id()] = m;
    }
    if (next < steps.size() && steps[next] == step) {
      // The largest first (ties in id order, last first: the same report each run).
      AliveSnapshot s{step, storage.alive().size(), {}};
      for (auto it = storage.alive().rbegin();
           it != storage.alive().rend() && s.largest.size() < largest; ++it)
        s.largest.push_back({by_id[it->second], it->first});
      out.push_back(std::move(s));
      ++next;
    }
    ++step;
  });
  return out;
}

}  // namespace remat::partition
