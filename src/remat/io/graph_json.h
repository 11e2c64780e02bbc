// fxgraph-json/1 graph files: read into a GraphModule, write back without loss.
#pragma once

#include <string>
#include <string_view>

#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"

namespace remat {

inline constexpr std::string_view kGraphSchema = "fxgraph-json/1";

/// Reads a graph file's text. `file` names it in diagnostics, which carry the JSON path of the
/// problem (`nodes[12].args[1]`). Unknown keys at every level are kept for writing back.
Expected<GraphModule> read_graph_json(std::string_view text, const std::string& file);
/// Reads a graph file from `path` ("-" for stdin).
Expected<GraphModule> load_graph_json(const std::string& path);

/// The module as fxgraph-json/1 text: one node per line, keys in a fixed order, unknown keys
/// after the known ones. Writing what was read gives the same text again.
std::string write_graph_json(const GraphModule& module);
/// Writes the file atomically ("-" for stdout).
Status save_graph_json(const GraphModule& module, const std::string& path);

}  // namespace remat
