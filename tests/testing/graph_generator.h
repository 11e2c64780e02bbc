// Random but reproducible graphs for property tests and benchmarks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "remat/ir/graph_module.h"

namespace remat::testing {

struct GeneratorOptions {
  uint64_t seed = 1;
  size_t num_nodes = 100;          ///< approximate number of nodes
  bool every_value_kind = true;    ///< sprinkle nodes whose args use every Argument kind
  bool checkpoint_regions = true;  ///< runs of nodes tagged with ac_graph_id / recompute
  bool stack_traces = true;
  bool opaque_values = true;  ///< include a Repr value (text cannot carry one back)
};

/// A well-formed graph (verify() passes) in the style of an AOT joint graph: chains, diamonds,
/// matmuls with transposes, multi-output ops read through getitem, checkpoint regions, and
/// (optionally) every value kind of fxgraph-json. Same options, same graph.
GraphModule generate_graph(const GeneratorOptions& options);

}  // namespace remat::testing
