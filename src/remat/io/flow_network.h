// fxgraph-json/1#flow files: the max-flow network a min-cut partitioner solved, and its cut.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "remat/ir/raw_json.h"
#include "remat/support/expected.h"

namespace remat {

inline constexpr std::string_view kFlowSchema = "fxgraph-json/1#flow";

/// A directed edge; `capacity` is +infinity for the infinite edges (`"inf"` in the file).
struct FlowEdge {
  std::string from;
  std::string to;
  double capacity = 0;
  friend bool operator==(const FlowEdge&, const FlowEdge&) = default;
};

/// A flow network in vertex-insertion order, with the solved cut when the file has one.
struct FlowNetwork {
  std::string graph_name;
  std::string source = "source";
  std::string sink = "sink";
  std::vector<std::string> nodes;
  std::vector<FlowEdge> edges;
  std::optional<double> cut_value;  ///< +infinity when the cut is unbounded
  std::vector<std::pair<std::string, std::string>> cut_edges;
  std::optional<std::vector<std::string>> source_side;
  RawJsonFields extras;  ///< keys remat does not interpret, kept verbatim

  friend bool operator==(const FlowNetwork&, const FlowNetwork&) = default;
};

/// Reads a flow file; checks counts and that every edge, cut and side names a known vertex.
Expected<FlowNetwork> read_flow_json(std::string_view text, const std::string& file);
/// The network as text; writing what was read gives the same text again.
std::string write_flow_json(const FlowNetwork& network);

}  // namespace remat
