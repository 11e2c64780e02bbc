#include "remat/ir/verify.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <span>

namespace remat {
namespace {

void report(Diagnostics& out, const std::string& where, std::string message) {
  Diagnostic d;
  d.path = where;
  d.message = std::move(message);
  out.push_back(std::move(d));
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

// Membership in a node's users or inputs. Short lists are scanned; long ones (the users of a
// value read everywhere, the inputs of an output node that returns thousands of values) get a
// set built once, so that verifying stays linear in the number of edges.
class Membership {
 public:
  bool has_user(const Node* value, const Node* user) {
    const auto& u = value->users();
    if (u.size() <= kScan) return std::find(u.begin(), u.end(), user) != u.end();
    auto [it, fresh] = users_.try_emplace(value);
    if (fresh) it->second.insert(u.begin(), u.end());
    return it->second.contains(user);
  }
  bool reads(const Node* user, const Node* value) {
    for (const Argument& a : user->args()) {
      if (a.is_node() && a.as_node() == value) return true;
    }
    auto [it, fresh] = inputs_.try_emplace(user);  // nested references: lists, kwargs
    if (fresh) {
      std::vector<Node*> in = user->input_nodes();
      it->second.insert(in.begin(), in.end());
    }
    return it->second.contains(value);
  }

 private:
  static constexpr size_t kScan = 32;
  absl::flat_hash_map<const Node*, absl::flat_hash_set<const Node*>> users_, inputs_;
};

bool has_duplicates(std::span<Node* const> users) {
  std::vector<const Node*> sorted(users.begin(), users.end());
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
}

}  // namespace

Diagnostics verify(const Graph& graph) {
  Diagnostics problems;
  absl::flat_hash_map<const Node*, size_t> index;  // nodes seen so far, with their position
  absl::flat_hash_set<std::string_view> names;
  index.reserve(graph.size());
  names.reserve(graph.size());
  size_t outputs = 0;
  size_t count = 0;
  Membership membership;
  std::vector<Node*> inputs;
  const Node* prev = nullptr;
  for (const Node* n : graph.nodes()) {
    const std::string where = "node " + quoted(n->name());
    if (n->graph() != &graph) report(problems, where, "belongs to another graph");
    if (n->prev() != prev) report(problems, where, "broken list link");
    if (prev && !prev->is_before(n)) report(problems, where, "order index not increasing");
    if (!names.insert(n->name()).second) report(problems, where, "duplicate name");
    if (graph.find(n->name()) != n) report(problems, where, "missing from the name index");
    if (n->op() == OpKind::Output) ++outputs;

    // Definition before use, and every input lists this node as a user.
    n->collect_input_nodes(inputs);
    for (const Node* input : inputs) {
      if (input->graph() != &graph) {
        report(problems, where, "uses " + quoted(input->name()) + " from another graph");
        continue;
      }
      if (index.find(input) == index.end()) {
        report(problems, where,
               "uses " + quoted(input->name()) +
                   (input == n ? " (itself)" : " before its definition"));
      }
      if (!membership.has_user(input, n))
        report(problems, where, "missing from the users of its input " + quoted(input->name()));
    }
    // Every user really uses this node, and users are unique.
    auto users = n->users();
    bool duplicates = has_duplicates(users);
    for (size_t u = 0; u < users.size(); ++u) {
      const Node* user = users[u];
      if (duplicates && std::find(users.begin(), users.begin() + static_cast<std::ptrdiff_t>(u),
                                  user) != users.begin() + static_cast<std::ptrdiff_t>(u)) {
        report(problems, where, "lists user " + quoted(user->name()) + " twice");
        continue;
      }
      if (!membership.reads(user, n))
        report(problems, where, "lists user " + quoted(user->name()) + " which does not use it");
    }
    if (const TensorMeta* t = n->meta.tensor()) {
      if (t->dtype == DType::Unknown) report(problems, where, "tensor metadata without a dtype");
    }
    index.emplace(n, count++);
    prev = n;
  }
  if (count != graph.size())
    report(problems, "graph",
           "size " + std::to_string(graph.size()) + " but " + std::to_string(count) +
               " nodes in the list");
  if (outputs != 1)
    report(problems, "graph", "has " + std::to_string(outputs) + " output nodes, expected 1");
  return problems;
}

Diagnostics verify(const GraphModule& module) {
  Diagnostics problems = verify(module.graph());
  size_t num_outputs = module.outputs().size();
  size_t num_placeholders = module.graph().placeholders().size();
  auto check_count = [&](const std::optional<int64_t>& v, const char* what, size_t limit) {
    if (v && (*v < 0 || static_cast<size_t>(*v) > limit))
      report(problems, what,
             std::to_string(*v) + " is out of range (0.." + std::to_string(limit) + ")");
  };
  check_count(module.num_fwd_outputs, "num_fwd_outputs", num_outputs);
  check_count(module.num_real_outputs, "num_real_outputs", num_outputs);
  check_count(module.num_primals, "num_primals", num_placeholders);
  check_count(module.num_tangents, "num_tangents", num_placeholders);
  if (module.saved_values) {
    for (const std::string& name : *module.saved_values)
      if (module.graph().find(name) == nullptr)
        report(problems, "saved_values", "names no node: " + quoted(name));
  }
  for (const Submodule& s : module.submodules) {
    for (Diagnostic d : verify(*s.module)) {
      d.path = s.name + ": " + d.path;
      problems.push_back(std::move(d));
    }
  }
  return problems;
}

}  // namespace remat
