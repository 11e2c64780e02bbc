#include "remat/ir/purity.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace remat {
namespace {

// ATen ops with side effects that torch.fx keeps even when their result is unused.
constexpr std::array<std::string_view, 10> kSideEffectOps{"_assert_async",
                                                          "_assert_scalar",
                                                          "_assert_tensor_metadata",
                                                          "sym_constrain_range",
                                                          "sym_constrain_range_for_size",
                                                          "_print",
                                                          "_functional_assert_async",
                                                          "record_stream",
                                                          "wait_tensor",
                                                          "_local_scalar_dense"};

constexpr std::array<std::string_view, 9> kRandomOps{"rand",         "randn",     "randint",
                                                     "randperm",     "rand_like", "randn_like",
                                                     "randint_like", "bernoulli", "native_dropout"};

/// The `op` of a canonical `ns.op.overload` target, or the whole target.
std::string_view op_name(std::string_view target) {
  size_t first = target.find('.');
  size_t last = target.rfind('.');
  if (first == std::string_view::npos || first == last) return target;
  return target.substr(first + 1, last - first - 1);
}

}  // namespace

namespace {

// What a call_function's target says about its purity; the target strings are read once per
// interned target (DCE and extraction ask for every node).
struct TargetPurity {
  bool in_place = false;
  bool side_effect = false;  // asserts, prints, `.out` overloads, kSideEffectOps
  bool random = false;
};

TargetPurity classify_target(std::string_view target) {
  TargetPurity p;
  std::string_view op = op_name(target);
  p.in_place = op.ends_with("_") && !op.ends_with("__");
  p.side_effect =
      target == "torch._assert" || target == "builtins.print" || target.ends_with(".out") ||
      std::find(kSideEffectOps.begin(), kSideEffectOps.end(), op) != kSideEffectOps.end();
  p.random = std::find(kRandomOps.begin(), kRandomOps.end(), op) != kRandomOps.end();
  return p;
}

const TargetPurity& target_purity(InternedString target) {
  // Per thread, so no lock: interned strings live forever, so their addresses are stable keys.
  thread_local absl::flat_hash_map<const void*, TargetPurity> known;
  auto [it, fresh] = known.try_emplace(target.view().data());
  if (fresh) it->second = classify_target(target.view());
  return it->second;
}

}  // namespace

bool is_in_place(const Node& n) {
  return n.op() == OpKind::CallFunction && target_purity(n.target()).in_place;
}

bool is_impure(const Node& n, bool random_is_impure) {
  if (n.op() == OpKind::Placeholder || n.op() == OpKind::Output) return true;
  if (n.op() != OpKind::CallFunction) return n.op() == OpKind::CallModule;
  const TargetPurity& p = target_purity(n.target());
  return p.in_place || p.side_effect || (random_is_impure && p.random);
}

}  // namespace remat
