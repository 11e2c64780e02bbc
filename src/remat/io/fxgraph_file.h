// Any fxgraph-json file (graph, flow network or partition summary), chosen by its schema tag.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "remat/io/flow_network.h"
#include "remat/io/graph_json.h"
#include "remat/io/partition_summary.h"
#include "remat/support/expected.h"

namespace remat {

using FxgraphDocument = std::variant<GraphModule, FlowNetwork, PartitionSummary>;

/// Reads the text as the kind its `schema` names; unknown or missing schemas are errors.
/// The top-level `schema` tag of a JSON document ("" when absent). Read from the first bytes when
/// it is the first key, as in every file remat writes; otherwise the document is parsed.
Expected<std::string> read_json_schema(std::string_view text, const std::string& file);

Expected<FxgraphDocument> read_fxgraph(std::string_view text, const std::string& file);
/// Reads `path` ("-" for stdin).
Expected<FxgraphDocument> load_fxgraph(const std::string& path);
/// The document as text in its own schema.
std::string write_fxgraph(const FxgraphDocument& document);

}  // namespace remat
