// Appending ATen calls to a graph the way make_fx records them: metadata inferred by the
// registry, trailing default arguments left out, a getitem per element of a tuple result.
#pragma once

#include <vector>

#include "remat/ir/graph.h"
#include "remat/ops/op_info.h"

namespace remat {

struct AppendedOp {
  Node* node = nullptr;
  /// One entry per result: the node itself for a single result, else its getitems (nullptr for
  /// an undefined element).
  std::vector<Node*> outputs;
  /// Every node appended: the call, then its getitems.
  std::vector<Node*> nodes;
};

/// Appends `op(args, kwargs)` at the graph's insertion point. Value metadata (`val`) is set on
/// every node appended; other metadata is the caller's. Errors are the op's inference errors.
Expected<AppendedOp> append_op(Graph& graph, const OpInfo& op, std::vector<Argument> args,
                               std::vector<Kwarg> kwargs);

/// Drops what make_fx leaves out when it records a call: kwarg-only arguments equal to their
/// default, and trailing positional arguments equal to theirs.
void strip_default_arguments(const OpSchema& schema, std::vector<Argument>& args,
                             std::vector<Kwarg>& kwargs);

}  // namespace remat
