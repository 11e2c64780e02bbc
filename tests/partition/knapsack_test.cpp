// The knapsack solvers: the cases of docs/spec/partitioning.md §10.24 and PyTorch issue #197871,
// and a property test against the exact solver on random instances.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "remat/partition/knapsack.h"

namespace remat::partition {
namespace {

struct Case {
  std::vector<double> memory, runtime;
  double capacity;
  double value;
  std::vector<int> saved, recompute;
};

TEST(Knapsack, DpGivesTheListedAnswers) {
  const Case cases[] = {
      {{2, 3, 2, 4, 1}, {1, 2, 1, 3, 2}, 5, 5.0, {3, 4}, {2, 1, 0}},
      {{1, 2, 3}, {10, 20, 30}, 1, 10.0, {0}, {2, 1}},
      {{0, 2, 3}, {5, 2, 3}, 5, 10.0, {0, 1, 2}, {}},
      {{100, 200, 300}, {1000, 2000, 3000}, 500, 5000.0, {1, 2}, {0}},
      {{0.5, 1.5, 2.0}, {1, 2, 3}, 2.0, 3.0, {0, 1}, {2}},
      {{1, 2, 3}, {0, 2, 3}, 3, 3.0, {2}, {0, 1}},
      {{0, 0, 0}, {1, 2, 3}, 0, 6.0, {0, 1, 2}, {}},
  };
  for (const Case& c : cases) {
    KnapsackResult r = dp_knapsack(c.memory, c.runtime, c.capacity);
    EXPECT_EQ(r.value, c.value);
    EXPECT_EQ(r.saved, c.saved);
    // The recompute list comes back in descending index order; compare it as a set.
    std::vector<int> got = r.recompute, want = c.recompute;
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
  }
}

TEST(Knapsack, NeverExceedsTheCapacity) {
  // PyTorch issue #197871: three 1-unit items, capacity 1 -> one item, not two.
  for (auto solver : {dp_knapsack, greedy_knapsack, exact_knapsack}) {
    KnapsackResult r = solver({1, 1, 1}, {1, 1, 1}, 1);
    EXPECT_EQ(r.saved.size(), 1u);
  }
  std::mt19937 rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    int n = std::uniform_int_distribution<int>(0, 12)(rng);
    std::vector<double> memory(n), runtime(n);
    for (int i = 0; i < n; ++i) {
      memory[i] = std::uniform_int_distribution<int>(0, 20)(rng) / 10.0;
      runtime[i] = std::uniform_int_distribution<int>(0, 50)(rng);
    }
    double capacity = std::uniform_int_distribution<int>(0, 40)(rng) / 10.0;
    KnapsackResult exact = exact_knapsack(memory, runtime, capacity);
    for (auto solver : {dp_knapsack, greedy_knapsack, exact_knapsack}) {
      KnapsackResult r = solver(memory, runtime, capacity);
      double used = 0, value = 0;
      for (int i : r.saved) {
        used += memory[i];
        value += runtime[i];
      }
      EXPECT_LE(used, capacity + 1e-9) << "trial " << trial;
      EXPECT_EQ(value, r.value);
      EXPECT_EQ(r.saved.size() + r.recompute.size(), static_cast<size_t>(n));
      EXPECT_LE(value, exact.value + 1e-9) << "trial " << trial;
    }
    // Memories in tenths are exact under the DP's quantisation: it is optimal too.
    EXPECT_EQ(dp_knapsack(memory, runtime, capacity).value, exact.value) << "trial " << trial;
  }
}

}  // namespace
}  // namespace remat::partition
