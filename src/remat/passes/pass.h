// A graph pass, as the registry and the pipeline see it: a name, what it does, and a function
// that rewrites one graph, or a partition's forward and backward together, and says what it did.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "remat/ir/forward_backward.h"
#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"

namespace remat::passes {

/// One thing a pass did to one node, in words (`remat opt --remarks`, the partition report).
struct PassRemark {
  std::string node;     ///< the node's name (before the pass, for a node it erased)
  std::string message;  ///< what happened to it
  std::string into;     ///< the node that took its place, where one did (a CSE merge)
};

/// What a run of a pass did: everything it has to say is here, not in the caller's variables.
struct PassResult {
  bool changed = false;
  /// Counts by name ("erased", "merged"), in the order the pass reports them.
  std::vector<std::pair<std::string, int64_t>> statistics;
  std::vector<PassRemark> remarks;

  /// The count named `name`, 0 when the pass did not report it.
  [[nodiscard]] int64_t statistic(std::string_view name) const;
};

using GraphPassFn = std::function<Expected<PassResult>(GraphModule&)>;
using PairPassFn = std::function<Expected<PassResult>(ForwardBackward&)>;

/// A registered pass. A graph pass rewrites one graph (run over a partition, each of its two
/// graphs in turn); a pair pass needs the forward and the backward together.
struct PassInfo {
  std::string name;     ///< as `remat opt --passes` spells it: dce, cse, ...
  std::string summary;  ///< one line for `remat opt --list`
  GraphPassFn on_graph;
  PairPassFn on_pair;

  [[nodiscard]] bool needs_pair() const { return static_cast<bool>(on_pair); }
};

}  // namespace remat::passes
