// A compile's graphs from a TORCH_TRACE log, for the graph verbs: `remat partition LOG --compile
// 3/0` reads the joint graph PyTorch logged for compile [3/0] (`aot_joint_graph`, print_readable
// text with shapes and recompute tags), and the forward and backward graphs PyTorch partitioned
// it into, without rerunning anything.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/support/expected.h"

namespace remat::cli {

struct LoggedCompile {
  std::string id;                        ///< "3/0", "3/0_1": as --compile takes it
  std::string joint, forward, backward;  ///< the logged texts; forward/backward empty if unlogged
  uint64_t joint_line = 0;               ///< the log line of the joint graph's header
  /// The joint's inputs that live as long as the model (PyTorch's static_lifetime_input_indices,
  /// which its partitioner is given and the log does not hold): the parameters and buffers among
  /// the inputs of Dynamo's graph of the compile, in the joint's order. nullopt when the log holds
  /// no such graph, or one whose inputs are not the joint's primals one for one.
  std::optional<std::vector<int64_t>> static_inputs;
};

/// Whether `text` is a TORCH_TRACE log (its first line a glog header), not a graph file.
bool looks_like_trace_log(std::string_view text);

/// The compile of the log at `path` whose joint graph a verb reads: `compile` ("3/0", "[3/0]",
/// "3/0_1"), or the only compile with a joint graph when it is empty. Otherwise an error that
/// lists the compiles with their sizes, for --compile.
Expected<LoggedCompile> logged_compile(const std::string& path, std::string_view compile);

/// Diagnostics about the joint graph's text made to point into the log: its lines are the log's
/// lines after the header, each with a tab before it.
Diagnostics in_log(Diagnostics errors, const std::string& log, const LoggedCompile& c);

}  // namespace remat::cli
