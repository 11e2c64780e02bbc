// Randomized ATen calls for every op of the registry: placeholders whose metadata is read off
// real tensors, shared by the inference cross-check and the gradient checks.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "remat/exec/aten_call.h"
#include "remat/ir/graph.h"
#include "remat/ir/graph_module.h"

namespace remat::testing {

using Ints = std::vector<int64_t>;

// Builds one randomized call: placeholders with metadata read off real tensors.
class Sample {
 public:
  explicit Sample(std::mt19937& rng) : rng_(rng) {}

  std::mt19937& rng() { return rng_; }
  int64_t pick(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }
  Ints shape(int64_t min_rank = 0, int64_t max_rank = 4) {
    Ints s(pick(min_rank, max_rank));
    for (int64_t& d : s) d = pick(1, 5);
    return s;
  }
  // A shape that broadcasts to `s`: leading dims dropped, some dims set to 1.
  Ints broadcastable_to(const Ints& s) {
    Ints out(s.begin() + pick(0, static_cast<int64_t>(s.size())), s.end());
    for (int64_t& d : out) {
      if (coin(0.3)) d = 1;
    }
    return out;
  }

  /// A random tensor of `sizes`, laid out in a random dim order half of the time.
  Argument tensor(const Ints& sizes, at::ScalarType dtype = at::kFloat, bool any_layout = true) {
    Ints perm(sizes.size());
    std::iota(perm.begin(), perm.end(), 0);
    if (any_layout && coin()) std::shuffle(perm.begin(), perm.end(), rng_);
    Ints permuted(sizes.size()), inverse(sizes.size());
    for (size_t i = 0; i < perm.size(); ++i) {
      permuted[i] = sizes[perm[i]];
      inverse[perm[i]] = static_cast<int64_t>(i);
    }
    at::Tensor base;
    if (dtype == at::kBool)
      base = at::randint(0, 2, permuted, at::kLong).to(at::kBool);
    else if (at::isIntegralType(dtype, false))
      base = at::randint(-5, 6, permuted, at::kLong).to(dtype);
    else
      base = at::randn(permuted, at::kDouble).to(dtype);
    return real(base.permute(inverse));
  }
  Argument indices(const Ints& sizes, int64_t bound) {
    return real(at::randint(0, bound, sizes, at::kLong));
  }
  Argument real(const at::Tensor& t) {
    Node* p = graph.placeholder("t");
    std::vector<SymInt> sizes(t.sizes().begin(), t.sizes().end()),
        strides(t.strides().begin(), t.strides().end());
    p->meta.set_tensor(TensorMeta(exec::from_scalar_type(t.scalar_type()), sizes,
                                  std::span<const SymInt>(strides), InternedString("cpu")));
    values[p] = t;
    return Argument::node(p);
  }
  at::ScalarType any_dtype(bool with_int = true) {
    static const at::ScalarType kTypes[] = {at::kFloat, at::kDouble, at::kLong, at::kInt};
    return kTypes[pick(0, with_int ? 3 : 1)];
  }
  static Argument ints(const Ints& v) {
    std::vector<Argument> out;
    for (int64_t x : v) out.push_back(Argument::integer(x));
    return Argument::list(std::move(out));
  }

  GraphModule module;
  Graph& graph = module.graph();
  std::map<const Node*, at::Tensor> values;
  std::vector<Argument> args;
  std::vector<Kwarg> kwargs;

 private:
  std::mt19937& rng_;
};

using Generator = std::function<void(Sample&)>;

/// One generator per registered op target (`aten.mm.default`).
std::map<std::string, Generator> aten_generators();

}  // namespace remat::testing
