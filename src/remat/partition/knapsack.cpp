#include "remat/partition/knapsack.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "remat/support/assert.h"

namespace remat::partition {
namespace {

constexpr double kQuantization = 10'000;

KnapsackResult finish(std::vector<bool> take, const std::vector<double>& runtime) {
  KnapsackResult r;
  for (size_t i = 0; i < take.size(); ++i) {
    if (take[i]) {
      r.saved.push_back(static_cast<int>(i));
      r.value += runtime[i];
    }
  }
  for (size_t i = take.size(); i-- > 0;) {
    if (!take[i]) r.recompute.push_back(static_cast<int>(i));
  }
  return r;
}

/// Item indices by runtime saved per byte, best first (free items first; ties keep their order).
std::vector<size_t> by_value_density(const std::vector<double>& memory,
                                     const std::vector<double>& runtime) {
  std::vector<size_t> order(memory.size());
  std::iota(order.begin(), order.end(), 0);
  auto ratio = [&](size_t i) {
    return memory[i] == 0 ? std::numeric_limits<double>::infinity() : runtime[i] / memory[i];
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return ratio(a) > ratio(b); });
  return order;
}

}  // namespace

KnapsackResult dp_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                           double capacity) {
  REMAT_ASSERT(memory.size() == runtime.size()) << "memory and runtime differ in length";
  size_t n = memory.size();
  std::vector<int64_t> w(n);
  for (size_t i = 0; i < n; ++i)
    w[i] = std::max<int64_t>(0, std::llround(memory[i] * kQuantization));
  int64_t cap = std::max<int64_t>(0, std::llround(capacity * kQuantization));
  // Items heavier than the capacity can never be saved; the table only needs the rest.
  size_t width = static_cast<size_t>(cap) + 1;
  // float32 cells, as PyTorch's table: ties and rounding resolve the same way.
  std::vector<float> dp((n + 1) * width, 0.0F);
  auto at = [&](size_t i, size_t j) -> float& { return dp[i * width + j]; };
  for (size_t i = 1; i <= n; ++i) {
    auto r = static_cast<float>(runtime[i - 1]);
    for (size_t j = 0; j < width; ++j) {
      float best = at(i - 1, j);
      if (w[i - 1] <= static_cast<int64_t>(j))
        best = std::max(best, at(i - 1, j - static_cast<size_t>(w[i - 1])) + r);
      at(i, j) = best;
    }
  }
  std::vector<bool> take(n, false);
  size_t j = width - 1;
  for (size_t i = n; i > 0; --i) {
    if (at(i, j) != at(i - 1, j)) {
      take[i - 1] = true;
      j -= static_cast<size_t>(w[i - 1]);
    }
  }
  return finish(std::move(take), runtime);
}

KnapsackResult greedy_knapsack(const std::vector<double>& memory,
                               const std::vector<double>& runtime, double capacity) {
  size_t n = memory.size();
  std::vector<size_t> order = by_value_density(memory, runtime);
  std::vector<bool> take(n, false);
  double used = 0;
  for (size_t i : order) {
    if (used + memory[i] <= capacity + 1e-9) {
      used += memory[i];
      take[i] = true;
    }
  }
  return finish(std::move(take), runtime);
}

KnapsackResult exact_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                              double capacity) {
  size_t n = memory.size();
  constexpr double kSlack = 1e-9;  // sums of decimal memories are inexact in binary
  std::vector<size_t> order = by_value_density(memory, runtime);
  std::vector<bool> take(n, false), best_take(n, false);
  double best = -1;
  // Upper bound: the fractional knapsack over the remaining items.
  auto bound = [&](size_t k, double room, double value) {
    for (; k < n; ++k) {
      size_t i = order[k];
      if (memory[i] <= room + kSlack) {
        room -= memory[i];
        value += runtime[i];
      } else {
        return value + (memory[i] > 0 ? runtime[i] * room / memory[i] : runtime[i]);
      }
    }
    return value;
  };
  auto search = [&](auto&& self, size_t k, double room, double value) -> void {
    if (k == n) {
      if (value > best) {
        best = value;
        best_take = take;
      }
      return;
    }
    if (bound(k, room, value) <= best) return;
    size_t i = order[k];
    if (memory[i] <= room + kSlack) {
      take[i] = true;
      self(self, k + 1, room - memory[i], value + runtime[i]);
      take[i] = false;
    }
    self(self, k + 1, room, value);
  };
  search(search, 0, capacity, 0.0);
  return finish(std::move(best_take), runtime);
}

}  // namespace remat::partition
