// KnapsackEvaluator (docs/spec/partitioning.md §7.3): what a knapsack answer costs — saved memory
// (or the peak of a simulated backward that recomputes the rest) and recompute runtime — over a
// range of budgets, and the "knee" budget where neither can improve much without the other
// getting worse. The dynamic-budget solver uses the knee.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "remat/ir/graph.h"
#include "remat/partition/knapsack.h"
#include "remat/support/expected.h"

namespace remat::partition {

/// The knapsack's items: the banned values the budget may let go, their memory and runtime,
/// and the recomputable-only graph "with larger context": an edge a -> b when b is computed
/// from a through nodes that are not items.
struct KnapsackItems {
  std::vector<std::string> names;
  std::vector<double> memory;
  std::vector<double> runtime;
  std::vector<std::pair<int, int>> edges;  ///< item indices, producer -> consumer
};

/// Items from a graph: `items` in graph order with their memories and runtimes.
KnapsackItems knapsack_items(const Graph& graph, const std::vector<const Node*>& items,
                             std::vector<double> memory, std::vector<double> runtime);

struct KnapsackEvaluation {
  double memory_budget = 0;
  double peak_memory = 0;
  double recomputation_runtime = 0;
  double non_ac_peak_memory = 0;       ///< every item saved
  double theoretical_max_runtime = 0;  ///< every item recomputed
  [[nodiscard]] double memory_fraction() const {
    return non_ac_peak_memory > 0 ? peak_memory / non_ac_peak_memory : 0;
  }
  [[nodiscard]] double runtime_fraction() const {
    return theoretical_max_runtime > 0 ? recomputation_runtime / theoretical_max_runtime : 0;
  }
};

/// One step of the simulated backward: memory after it, and what happened.
struct MemoryStep {
  double memory;
  std::string what;
};

using KnapsackSolve = std::function<KnapsackResult(
    const std::vector<double>& memory, const std::vector<double>& runtime, double capacity)>;

class KnapsackEvaluator {
 public:
  explicit KnapsackEvaluator(KnapsackItems items) : items_(std::move(items)) {}

  /// `saved` and `recomputed` must split the items exactly. Peak memory is the saved items'
  /// total, or with `simulate_backward` the peak of `backward_memory`.
  [[nodiscard]] Expected<KnapsackEvaluation> evaluate(const std::vector<int>& saved,
                                                      const std::vector<int>& recomputed,
                                                      bool simulate_backward = false) const;
  /// The backward in reverse topological order of the item graph: a saved (or already
  /// recomputed) item is dropped; another is recomputed with its unsaved predecessors, then
  /// dropped. Starts from `start` (typically the saved items' total).
  [[nodiscard]] std::vector<MemoryStep> backward_memory(const std::vector<bool>& saved,
                                                        double start) const;
  /// `solve` at each budget.
  [[nodiscard]] std::vector<KnapsackEvaluation> evaluate_budgets(
      const KnapsackSolve& solve, const std::vector<double>& budgets) const;
  /// The budget among `iterations` evenly spaced ones in [min, max] whose (runtime, memory)
  /// fractions, each scaled to [0, 1] over the sweep, are closest to the origin; `max` when
  /// either fraction does not vary.
  [[nodiscard]] double knee_point_budget(const KnapsackSolve& solve, double max_budget = 0.1,
                                         double min_budget = 0.001, int iterations = 100) const;

 private:
  KnapsackItems items_;
};

/// numpy.linspace: `count` values from `first` to `last` inclusive.
std::vector<double> linspace(double first, double last, int count);

}  // namespace remat::partition
