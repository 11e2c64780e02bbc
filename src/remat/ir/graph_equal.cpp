#include "remat/ir/graph_equal.h"

namespace remat {

bool same_argument(const Argument& a, const Argument& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ArgKind::Node:
      return a.as_node()->name() == b.as_node()->name();
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice: {
      auto x = a.elements(), y = b.elements();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same_argument(x[i], y[i])) return false;
      return true;
    }
    case ArgKind::Dict: {
      auto x = a.dict_entries(), y = b.dict_entries();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (x[i].key != y[i].key || !same_argument(x[i].value, y[i].value)) return false;
      return true;
    }
    default:
      return a == b;
  }
}

namespace {

std::string node_difference(const Node& a, const Node& b) {
  std::string where = "node '" + a.name() + "': ";
  if (a.name() != b.name()) return "node '" + a.name() + "' vs '" + b.name() + "'";
  if (a.op() != b.op()) return where + "op differs";
  if (!(a.target() == b.target())) return where + "target differs";
  if (a.args().size() != b.args().size()) return where + "number of args differs";
  for (size_t i = 0; i < a.args().size(); ++i)
    if (!same_argument(a.args()[i], b.args()[i]))
      return where + "arg " + std::to_string(i) + " differs";
  if (a.kwargs().size() != b.kwargs().size()) return where + "number of kwargs differs";
  for (size_t i = 0; i < a.kwargs().size(); ++i) {
    if (!(a.kwargs()[i].key == b.kwargs()[i].key) ||
        !same_argument(a.kwargs()[i].value, b.kwargs()[i].value))
      return where + "kwarg '" + a.kwargs()[i].key.str() + "' differs";
  }
  if (a.users().size() != b.users().size()) return where + "number of users differs";
  for (size_t i = 0; i < a.users().size(); ++i)
    if (a.users()[i]->name() != b.users()[i]->name()) return where + "users differ";
  if (!(a.meta == b.meta)) return where + "meta differs";
  return {};
}

}  // namespace

std::string first_difference(const GraphModule& a, const GraphModule& b) {
  if (a.graph_name != b.graph_name) return "graph_name differs";
  if (a.class_name != b.class_name) return "class_name differs";
  if (!(a.codegen == b.codegen)) return "codegen differs";
  if (a.num_fwd_outputs != b.num_fwd_outputs || a.num_primals != b.num_primals ||
      a.num_tangents != b.num_tangents || a.num_real_outputs != b.num_real_outputs)
    return "joint/partition counts differ";
  if (a.saved_values != b.saved_values) return "saved_values differ";
  if (a.static_lifetime_input_indices != b.static_lifetime_input_indices)
    return "static_lifetime_input_indices differ";
  if (a.extras != b.extras) return "module extras differ";
  if (a.graph().size() != b.graph().size())
    return "node count " + std::to_string(a.graph().size()) + " vs " +
           std::to_string(b.graph().size());
  const Node* x = a.graph().first();
  const Node* y = b.graph().first();
  for (; x != nullptr; x = x->next(), y = y->next()) {
    std::string d = node_difference(*x, *y);
    if (!d.empty()) return d;
  }
  if (a.submodules.size() != b.submodules.size()) return "number of submodules differs";
  for (size_t i = 0; i < a.submodules.size(); ++i) {
    if (a.submodules[i].name != b.submodules[i].name) return "submodule names differ";
    std::string d = first_difference(*a.submodules[i].module, *b.submodules[i].module);
    if (!d.empty()) return "submodule '" + a.submodules[i].name + "': " + d;
  }
  return {};
}

}  // namespace remat
