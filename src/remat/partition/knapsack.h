// 0/1 knapsack solvers for the memory budget (docs/spec/partitioning.md §7.3): choose which banned
// values to keep saved (maximising the runtime they save) within a memory capacity.
#pragma once

#include <vector>

namespace remat::partition {

struct KnapsackResult {
  double value = 0;            ///< total runtime of the saved items
  std::vector<int> saved;      ///< ascending indices
  std::vector<int> recompute;  ///< descending indices
};

/// PyTorch's default: memories quantised to 1/10,000 of a unit (round(m * 10000)), a DP table
/// over (items, capacity); zero-weight items are always saved. The result never exceeds the
/// quantised capacity.
KnapsackResult dp_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                           double capacity);
/// Greedy by runtime/memory, descending, while the memory fits.
KnapsackResult greedy_knapsack(const std::vector<double>& memory,
                               const std::vector<double>& runtime, double capacity);
/// Exact (branch and bound on unquantised memories); for small instances and for testing the
/// others.
KnapsackResult exact_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                              double capacity);

}  // namespace remat::partition
