#include "remat/ops/aten_overloads.h"

#include <algorithm>
#include <initializer_list>

#include <absl/container/flat_hash_set.h>

#include "remat/ops/bound_call.h"
#include "remat/ops/op_registry.h"

namespace remat {

// Generated from ops/data/aten_overloads.txt (CMake embeds the file; tests/ops keeps it equal to
// the installed libtorch's dispatcher) and ops/data/aten_overloads_torch2.txt (what PyTorch 2.x
// adds; tools/gen_torch_op_lists.py writes it from the pip torch), and the overloads PyTorch tags
// nondeterministic_seeded (ops/data/torch_seeded_overloads.txt, the same tool).
extern const char* const kAtenOverloadsText;
extern const char* const kTorch2OverloadsText;
extern const char* const kTorchSeededOverloadsText;

namespace {

struct Overloads {
  std::vector<std::string_view> sorted;  ///< views into kAtenOverloadsText
  absl::flat_hash_set<std::string_view> set;
};

// The lines of embedded lists, comments skipped, sorted.
Overloads read_overloads(std::initializer_list<std::string_view> texts) {
  Overloads o;
  for (std::string_view text : texts) {
    while (!text.empty()) {
      size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      if (!line.empty() && !line.starts_with('#')) o.sorted.push_back(line);
      text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    }
  }
  std::sort(o.sorted.begin(), o.sorted.end());
  o.set.insert(o.sorted.begin(), o.sorted.end());
  return o;
}

const Overloads& overloads() {
  static const Overloads table = read_overloads({kAtenOverloadsText, kTorch2OverloadsText});
  return table;
}

bool judged(std::string_view target) {
  return target.starts_with("aten.") || target.starts_with("prims.");
}

}  // namespace

bool aten_overload_known(std::string_view target) {
  return find_op(target) != nullptr || overloads().set.contains(target);
}

bool torch_seeded_overload(std::string_view target) {
  static const Overloads seeded = read_overloads({kTorchSeededOverloadsText});
  return seeded.set.contains(target);
}

std::vector<std::string> aten_overloads_of(std::string_view packet) {
  std::vector<std::string> out;
  std::string prefix = std::string(packet) + ".";
  const auto& sorted = overloads().sorted;
  for (auto it = std::lower_bound(sorted.begin(), sorted.end(), std::string_view(prefix));
       it != sorted.end() && it->starts_with(prefix); ++it) {
    std::string_view overload = it->substr(prefix.size());
    if (overload.find('.') == std::string_view::npos) out.emplace_back(overload);
  }
  for (const OpInfo& op : all_ops()) {
    std::string_view t = op.target;
    if (t.starts_with(prefix) && t.substr(prefix.size()).find('.') == std::string_view::npos)
      out.emplace_back(t.substr(prefix.size()));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::pair<const Node*, std::string>> target_problems(const Graph& graph) {
  std::vector<std::pair<const Node*, std::string>> out;
  for (const Node* n : graph.nodes()) {
    if (n->op() != OpKind::CallFunction) continue;
    std::string_view target = n->target().view();
    if (!judged(target)) continue;
    if (const OpInfo* op = find_op(target)) {
      auto call = bind(op->schema, n->args(), n->kwargs());
      if (!call) out.emplace_back(n, call.errors().front().message);
      continue;
    }
    if (overloads().set.contains(target)) continue;
    size_t last = target.rfind('.');
    std::string_view packet = target.substr(0, last);
    std::vector<std::string> known = aten_overloads_of(packet);
    if (known.empty()) {
      out.emplace_back(n, "unknown operator " + std::string(target) +
                              ": neither libtorch 1.13 nor PyTorch 2.13 has " +
                              std::string(packet));
    } else {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      out.emplace_back(n, "unknown overload " + std::string(target) + ": " + std::string(packet) +
                              " has " + list);
    }
  }
  return out;
}

}  // namespace remat
