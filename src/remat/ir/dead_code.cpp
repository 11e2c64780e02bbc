#include "remat/ir/dead_code.h"

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

bool is_in_place(const Node& n) {
  if (n.op() != OpKind::CallFunction) return false;
  std::string_view op = op_name(n.target().view());
  return op.ends_with("_") && !op.ends_with("__");
}

bool is_impure(const Node& n, bool random_is_impure) {
  if (n.op() == OpKind::Placeholder || n.op() == OpKind::Output) return true;
  if (n.op() != OpKind::CallFunction) return n.op() == OpKind::CallModule;
  std::string_view target = n.target().view();
  if (target == "torch._assert" || target == "builtins.print") return true;
  if (is_in_place(n)) return true;
  std::string_view op = op_name(target);
  if (target.ends_with(".out")) return true;                  // out= overloads write an input
  for (std::string_view s : kSideEffectOps)
    if (op == s) return true;
  if (random_is_impure)
    for (std::string_view r : kRandomOps)
      if (op == r) return true;
  return false;
}

size_t eliminate_dead_code(Graph& graph, const std::function<bool(const Node&)>& impure) {
  size_t erased = 0;
  Node* n = graph.last();
  while (n != nullptr) {
    Node* prev = n->prev();
    if (n->users().empty() && !impure(*n)) {
      graph.erase(n);
      ++erased;
    }
    n = prev;
  }
  return erased;
}

}  // namespace remat
