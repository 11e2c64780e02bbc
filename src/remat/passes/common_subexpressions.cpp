#include "remat/passes/common_subexpressions.h"

#include <algorithm>
#include <array>
#include <bit>
#include <string_view>

#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>

#include "remat/ir/node_set.h"
#include "remat/ir/target.h"
#include "remat/ops/storage_root.h"

namespace remat::passes {
namespace {

// The ATen ops PyTorch's CSE never merges, by op and whatever the overload (compile_utils'
// rand_ops): each call draws anew. remat's registry knows few of them as random, so the list is
// spelled here. `randn_like` is not among them, in PyTorch either.
constexpr std::array<std::string_view, 15> kRandomOps{
    "dropout",        "_fused_dropout", "_standard_gamma", "bernoulli", "multinomial",
    "native_dropout", "normal",         "poisson",         "binomial",  "rrelu",
    "rand_like",      "rand",           "randint",         "randn",     "randperm"};

// Argument kinds CSE compares by value; a node reading any other kind (None, complex, tensor
// constants, reprs) is never merged.
bool mergeable(const Argument& a) {
  switch (a.kind()) {
    case ArgKind::Node:
    case ArgKind::Int:
    case ArgKind::Float:
    case ArgKind::Bool:
    case ArgKind::String:
    case ArgKind::Device:
    case ArgKind::Op:
    case ArgKind::Enum:
    case ArgKind::SymInt:
    case ArgKind::DType:
    case ArgKind::Layout:
    case ArgKind::MemoryFormat:
      return true;
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice:
      return std::all_of(a.elements().begin(), a.elements().end(), mergeable);
    case ArgKind::Dict:
      return std::all_of(a.dict_entries().begin(), a.dict_entries().end(),
                         [](const DictEntry& e) { return mergeable(e.value); });
    default:
      return false;
  }
}

// Hashes what Argument's operator== compares (nodes by identity, floats bitwise).
size_t hash_argument(const Argument& a) {
  size_t h = absl::HashOf(static_cast<int>(a.kind()));
  switch (a.kind()) {
    case ArgKind::Node:
      return absl::HashOf(h, a.as_node());
    case ArgKind::Int:
      return absl::HashOf(h, a.as_int());
    case ArgKind::Float:
      return absl::HashOf(h, std::bit_cast<uint64_t>(a.as_float()));
    case ArgKind::Bool:
      return absl::HashOf(h, a.as_bool());
    case ArgKind::String:
    case ArgKind::Device:
    case ArgKind::Op:
    case ArgKind::Enum:
    case ArgKind::SymInt:
      return absl::HashOf(h, a.as_text().data());  // interned: one address per text
    case ArgKind::DType:
      return absl::HashOf(h, static_cast<int>(a.as_dtype()));
    case ArgKind::Layout:
      return absl::HashOf(h, static_cast<int>(a.as_layout()));
    case ArgKind::MemoryFormat:
      return absl::HashOf(h, static_cast<int>(a.as_memory_format()));
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice:
      for (const Argument& e : a.elements()) h = absl::HashOf(h, hash_argument(e));
      return h;
    case ArgKind::Dict:
      for (const DictEntry& e : a.dict_entries())
        h = absl::HashOf(h, e.key, hash_argument(e.value));
      return h;
    default:
      return h;
  }
}

// A node as CSE sees it: its target, args and kwargs.
struct SameComputationHash {
  size_t operator()(const Node* n) const {
    size_t h = absl::HashOf(n->target().view().data());
    for (const Argument& a : n->args()) h = absl::HashOf(h, hash_argument(a));
    for (const Kwarg& kw : n->kwargs())
      h = absl::HashOf(h, kw.key.view().data(), hash_argument(kw.value));
    return h;
  }
};
struct SameComputation {
  bool operator()(const Node* a, const Node* b) const {
    if (a->target() != b->target()) return false;
    auto x = a->args(), y = b->args();
    auto kx = a->kwargs(), ky = b->kwargs();
    return std::equal(x.begin(), x.end(), y.begin(), y.end()) &&
           std::equal(kx.begin(), kx.end(), ky.begin(), ky.end());
  }
};

}  // namespace

std::vector<Merge> eliminate_common_subexpressions(
    Graph& graph, const std::function<bool(const Node&)>& never_merge) {
  absl::flat_hash_set<Node*, SameComputationHash, SameComputation> seen;
  seen.reserve(graph.size());  // growing would hash every node's arguments again at each rehash
  NodeSet output_storages(graph);
  if (const Node* out = graph.output_node()) {
    for (const Node* x : out->input_nodes()) output_storages.insert(&alias_root(*x));
  }
  std::vector<Node*> duplicates;
  std::vector<Merge> merged;
  for (Node* n : graph.nodes()) {
    if (n->op() != OpKind::CallFunction || never_merge(*n)) continue;
    if (output_storages.contains(&alias_root(*n))) continue;
    if (n->target().view().starts_with("aten.empty")) continue;
    bool comparable = std::all_of(n->args().begin(), n->args().end(), mergeable) &&
                      std::all_of(n->kwargs().begin(), n->kwargs().end(),
                                  [](const Kwarg& kw) { return mergeable(kw.value); });
    if (!comparable) continue;
    auto [it, fresh] = seen.insert(n);
    if (!fresh) {
      merged.push_back({n->name(), (*it)->name()});
      n->replace_all_uses_with(*it);
      duplicates.push_back(n);
    }
  }
  for (auto it = duplicates.rbegin(); it != duplicates.rend(); ++it) graph.erase(*it);
  return merged;
}

bool is_random_for_cse(const Node& n) {
  if (n.op() != OpKind::CallFunction || !n.target().view().starts_with("aten.")) return false;
  std::string_view op = callable_short_name(n.target().view());
  return std::find(kRandomOps.begin(), kRandomOps.end(), op) != kRandomOps.end();
}

PassInfo common_subexpressions_pass() {
  PassInfo p;
  p.name = "cse";
  p.summary =
      "merge calls of the same op on the same arguments into the first, never a random op "
      "(the partitioners' CSE)";
  p.on_graph = [](GraphModule& m) -> Expected<PassResult> {
    PassResult r;
    std::vector<Merge> merged = eliminate_common_subexpressions(m.graph(), is_random_for_cse);
    r.changed = !merged.empty();
    r.statistics.emplace_back("merged", static_cast<int64_t>(merged.size()));
    for (Merge& x : merged)
      r.remarks.push_back({std::move(x.removed), "merged into " + x.kept, std::move(x.kept)});
    return r;
  };
  return p;
}

}  // namespace remat::passes
