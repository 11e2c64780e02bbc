// The nodes a graph text defines, read off the text without building a graph: what the report
// needs from any graph torch.fx printed (remat's, or PyTorch's in a log) to anchor, color and
// mark each node's line. The readable parser (print/) reads the same text into a Graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace remat::fxtext {

/// One statement or parameter line of a graph text.
struct GraphLine {
  size_t line = 0;  ///< 0-based
  std::string name;
  std::optional<int64_t> ac_graph_id;  ///< from the tag comment above it
  std::string recompute;               ///< policy from the tag comment, if any
  std::optional<uint64_t> bytes;       ///< from its annotation ("f32[4, 4]" -> 64)
  bool input = false;                  ///< a graph input (placeholder), not a statement
};

/// The nodes a graph text defines, in order: parameters of an expanded or plain signature,
/// pytree-unpacked inputs, and every `name: "annotation" = ...` / `name = ...` statement, each
/// with the checkpoint region and policy of its tags (any of the three placements).
std::vector<GraphLine> graph_lines(std::string_view text);

}  // namespace remat::fxtext
