#include "remat/partition/memory_timeline.h"

#include <algorithm>
#include <set>

#include "remat/ir/node_set.h"
#include "remat/partition/partition_report.h"

namespace remat::partition {
namespace {

/// Runs one graph's schedule: `on_step(node, live)` for its inputs (node nullptr) and each call;
/// `alive` (when given) holds (bytes, id) of what is alive while the step runs.
template <class OnStep>
void walk_graph(const Graph& g, std::set<std::pair<int64_t, uint32_t>>* alive, OnStep&& on_step) {
  NodeMap<size_t> uses(g, 0);
  NodeMap<int64_t> bytes(g, 0);  // what a value holds while alive; getitems alias their tuple's
  std::vector<Node*> ins;
  int64_t live = 0;
  auto born = [&](const Node* n) {
    live += bytes[n];
    if (alive && bytes[n] > 0) alive->insert({bytes[n], n->id()});
  };
  auto dies = [&](const Node* n) {
    live -= bytes[n];
    if (alive && bytes[n] > 0) alive->erase({bytes[n], n->id()});
  };
  for (const Node* n : g.nodes()) {
    uses[n] = n->users().size();
    if (!is_getitem(*n)) bytes[n] = value_bytes(*n);
    if (n->op() == OpKind::Placeholder) born(n);
  }
  on_step(nullptr, live);
  for (const Node* n : g.nodes()) {
    if (n->op() != OpKind::CallFunction) continue;
    born(n);
    on_step(n, live);
    n->collect_input_nodes(ins);
    for (Node* in : ins)
      if (--uses[in] == 0) dies(in);
  }
}

}  // namespace

MemoryTimeline memory_timeline(const ForwardBackward& graphs) {
  MemoryTimeline t;
  auto record = [&](const Node* n, int64_t live) {
    if (live > t.peak_bytes()) t.peak = t.steps.size();
    t.steps.push_back({n, live});
  };
  walk_graph(graphs.forward.graph(), nullptr, record);
  t.forward_steps = t.steps.size();
  walk_graph(graphs.backward.graph(), nullptr, record);
  return t;
}

int64_t peak_live_bytes(const ForwardBackward& graphs) {
  int64_t peak = 0;
  auto record = [&](const Node*, int64_t live) { peak = std::max(peak, live); };
  walk_graph(graphs.forward.graph(), nullptr, record);
  walk_graph(graphs.backward.graph(), nullptr, record);
  return peak;
}

std::vector<AliveSnapshot> alive_at(const ForwardBackward& graphs, const std::vector<size_t>& steps,
                                    size_t largest) {
  std::vector<AliveSnapshot> out;
  size_t step = 0, next = 0;
  for (const GraphModule* m : {&graphs.forward, &graphs.backward}) {
    const Graph& g = m->graph();
    std::vector<const Node*> by_id(g.id_bound(), nullptr);
    for (const Node* n : g.nodes()) by_id[n->id()] = n;
    std::set<std::pair<int64_t, uint32_t>> alive;  // ties in id order: the same report each run
    walk_graph(g, &alive, [&](const Node*, int64_t) {
      if (next < steps.size() && steps[next] == step) {
        AliveSnapshot s{step, alive.size(), {}};
        for (auto it = alive.rbegin(); it != alive.rend() && s.largest.size() < largest; ++it)
          s.largest.push_back({by_id[it->second], it->first});
        out.push_back(std::move(s));
        ++next;
      }
      ++step;
    });
  }
  return out;
}

}  // namespace remat::partition
