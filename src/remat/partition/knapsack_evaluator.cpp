#include "remat/partition/knapsack_evaluator.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>

namespace remat::partition {

KnapsackItems knapsack_items(const Graph& graph, const std::vector<const Node*>& items,
                             std::vector<double> memory, std::vector<double> runtime) {
  KnapsackItems out;
  out.memory = std::move(memory);
  out.runtime = std::move(runtime);
  absl::flat_hash_map<const Node*, int> index;
  for (size_t i = 0; i < items.size(); ++i) {
    index[items[i]] = static_cast<int>(i);
    out.names.push_back(items[i]->name());
  }
  // Which items reach each node through non-items only, in graph order.
  absl::flat_hash_map<const Node*, std::vector<int>> reaching;
  absl::flat_hash_set<std::pair<int, int>> seen;
  std::vector<Node*> inputs;
  for (const Node* n : graph.nodes()) {
    inputs.clear();
    n->collect_input_nodes(inputs);
    std::vector<int> from;
    for (const Node* in : inputs) {
      if (auto it = index.find(in); it != index.end()) {
        from.push_back(it->second);
      } else if (auto r = reaching.find(in); r != reaching.end()) {
        from.insert(from.end(), r->second.begin(), r->second.end());
      }
    }
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    if (auto it = index.find(n); it != index.end()) {
      for (int a : from) {
        if (seen.insert({a, it->second}).second) out.edges.emplace_back(a, it->second);
      }
    } else if (!from.empty()) {
      reaching[n] = std::move(from);
    }
  }
  return out;
}

Expected<KnapsackEvaluation> KnapsackEvaluator::evaluate(const std::vector<int>& saved,
                                                         const std::vector<int>& recomputed,
                                                         bool simulate_backward) const {
  size_t n = items_.names.size();
  std::vector<int> seen(n, 0);
  for (int i : saved) {
    if (i < 0 || static_cast<size_t>(i) >= n)
      return error_message("saved item " + std::to_string(i) + " does not exist");
    ++seen[i];
  }
  for (int i : recomputed) {
    if (i < 0 || static_cast<size_t>(i) >= n)
      return error_message("recomputed item " + std::to_string(i) + " does not exist");
    ++seen[i];
  }
  for (size_t i = 0; i < n; ++i) {
    if (seen[i] != 1) {
      return error_message(
          "item " + std::to_string(i) + " (" + items_.names[i] + ") is " +
          (seen[i] ? "both saved and recomputed" : "neither saved nor recomputed"));
    }
  }
  KnapsackEvaluation e;
  for (int i : recomputed) e.recomputation_runtime += items_.runtime[i];
  for (int i : saved) e.peak_memory += items_.memory[i];
  if (simulate_backward) {
    std::vector<bool> is_saved(n, false);
    for (int i : saved) is_saved[i] = true;
    double peak = e.peak_memory;
    for (const MemoryStep& s : backward_memory(is_saved, e.peak_memory))
      peak = std::max(peak, s.memory);
    e.peak_memory = peak;
  }
  e.non_ac_peak_memory = std::accumulate(items_.memory.begin(), items_.memory.end(), 0.0);
  e.theoretical_max_runtime = std::accumulate(items_.runtime.begin(), items_.runtime.end(), 0.0);
  return e;
}

std::vector<MemoryStep> KnapsackEvaluator::backward_memory(const std::vector<bool>& saved,
                                                           double start) const {
  size_t n = items_.names.size();
  std::vector<std::vector<int>> preds(n), succs(n);
  std::vector<int> indegree(n, 0);
  for (auto [a, b] : items_.edges) {
    preds[b].push_back(a);
    succs[a].push_back(b);
    ++indegree[b];
  }
  // Kahn's topological order, lowest index first among the ready ones (graph order).
  std::vector<int> order, ready;
  for (size_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push_back(static_cast<int>(i));
  }
  while (!ready.empty()) {
    auto lowest = std::min_element(ready.begin(), ready.end());
    int v = *lowest;
    ready.erase(lowest);
    order.push_back(v);
    for (int s : succs[v]) {
      if (--indegree[s] == 0) ready.push_back(s);
    }
  }
  std::vector<MemoryStep> steps = {{start, "Initial Peak/Current Memory"}};
  auto step = [&](double delta, std::string what) {
    steps.push_back({steps.back().memory + delta, std::move(what)});
  };
  std::vector<bool> computed(n, false);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int v = *it;
    const std::string& name = items_.names[v];
    if (saved[v] || computed[v]) {
      step(-items_.memory[v], "Dropping Node(already saved): " + name);
      continue;
    }
    computed[v] = true;
    step(items_.memory[v], "Recomputing Node: " + name);
    std::deque<int> queue;
    for (int p : preds[v]) {
      if (!computed[p] && !saved[p]) queue.push_back(p);
    }
    while (!queue.empty()) {
      int dep = queue.front();
      queue.pop_front();
      computed[dep] = true;
      step(items_.memory[dep], "Recomputing Predecessor of " + name + ": " + items_.names[dep]);
      for (int pp : preds[dep]) {
        if (computed[pp] || saved[pp] || std::find(queue.begin(), queue.end(), pp) != queue.end())
          continue;
        queue.push_back(pp);
      }
    }
    step(-items_.memory[v], "Dropping Node: " + name);
  }
  return steps;
}

std::vector<KnapsackEvaluation> KnapsackEvaluator::evaluate_budgets(
    const KnapsackSolve& solve, const std::vector<double>& budgets) const {
  std::vector<KnapsackEvaluation> out;
  for (double b : budgets) {
    KnapsackResult k = solve(items_.memory, items_.runtime, b);
    auto e = evaluate(k.saved, k.recompute);
    if (!e) continue;  // a solver that loses items: not a point of the sweep
    e->memory_budget = b;
    out.push_back(*e);
  }
  return out;
}

double KnapsackEvaluator::knee_point_budget(const KnapsackSolve& solve, double max_budget,
                                            double min_budget, int iterations) const {
  std::vector<KnapsackEvaluation> results =
      evaluate_budgets(solve, linspace(min_budget, max_budget, iterations));
  if (results.empty()) return max_budget;
  auto [rt_lo, rt_hi] = std::minmax_element(
      results.begin(), results.end(),
      [](const auto& a, const auto& b) { return a.runtime_fraction() < b.runtime_fraction(); });
  auto [mem_lo, mem_hi] = std::minmax_element(
      results.begin(), results.end(),
      [](const auto& a, const auto& b) { return a.memory_fraction() < b.memory_fraction(); });
  double rt_min = rt_lo->runtime_fraction(), rt_range = rt_hi->runtime_fraction() - rt_min;
  double mem_min = mem_lo->memory_fraction(), mem_range = mem_hi->memory_fraction() - mem_min;
  if (rt_range == 0 || mem_range == 0) return max_budget;
  size_t best = 0;
  double best_distance = INFINITY;
  for (size_t i = 0; i < results.size(); ++i) {
    double r = (results[i].runtime_fraction() - rt_min) / rt_range,
           m = (results[i].memory_fraction() - mem_min) / mem_range;
    double d = std::sqrt(r * r + m * m);
    if (d < best_distance) {  // the first of equals, as argmin
      best_distance = d;
      best = i;
    }
  }
  return results[best].memory_budget;
}

std::vector<double> linspace(double first, double last, int count) {
  std::vector<double> out;
  if (count <= 0) return out;
  if (count == 1) return {first};
  double step = (last - first) / (count - 1);
  for (int i = 0; i < count; ++i) out.push_back(first + i * step);
  out.back() = last;
  return out;
}

}  // namespace remat::partition
