#include "remat/ops/storage_root.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "remat/ir/target.h"
#include "remat/ops/op_registry.h"

namespace remat {
namespace {

// ATen ops returning an alias of their first argument that remat's registry does not hold.
constexpr std::array<std::string_view, 14> kAliasingOutsideTheRegistry{
    "alias",   "as_strided", "unfold",    "diagonal",        "narrow",
    "movedim", "swapaxes",   "unflatten", "view_as_real",    "view_as_complex",
    "split",   "unbind",     "chunk",     "split_with_sizes"};

bool returns_an_alias(const Node& n) {
  if (n.op() != OpKind::CallFunction || n.args().empty() || !n.args()[0].is_node()) return false;
  // Its schema says a new tensor, but it reshapes the input's storage in place of a view.
  if (n.target().view() == "aten._unsafe_view.default") return true;
  if (const OpInfo* op = node_op(n)) return op->schema.returns_alias();
  std::string_view t = n.target().view();
  if (!t.starts_with("aten.")) return false;
  std::string_view name = callable_short_name(t);
  return std::find(kAliasingOutsideTheRegistry.begin(), kAliasingOutsideTheRegistry.end(), name) !=
         kAliasingOutsideTheRegistry.end();
}

}  // namespace

const Node& storage_root(const Node& n) {
  const Node* at = &n;
  while (at->op() == OpKind::CallFunction && !at->args().empty() && at->args()[0].is_node() &&
         (node_is(*at, OpCategory::View) || at->target().view() == "aten.detach.default" ||
          at->target().view() == "aten._unsafe_view.default")) {
    at = at->args()[0].as_node();
  }
  return *at;
}

const Node& alias_root(const Node& n) {
  const Node* at = &n;
  for (;;) {
    if (is_getitem(*at) && !at->args().empty() && at->args()[0].is_node() &&
        returns_an_alias(*at->args()[0].as_node())) {
      at = at->args()[0].as_node()->args()[0].as_node();  // an element of split's tuple
    } else if (returns_an_alias(*at)) {
      at = at->args()[0].as_node();
    } else {
      return *at;
    }
  }
}

}  // namespace remat
