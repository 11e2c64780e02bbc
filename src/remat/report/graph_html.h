// FX graph text (print_readable output, as logged) as an HTML page: highlighted, each node's
// line anchored, nodes of each checkpoint region (ac_graph_id) in their own color, and for a
// joint graph with a partition, each node marked saved / recomputed / forward only / backward
// only with its bytes. Works from the text alone, so it reads PyTorch's graphs as well.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "remat/fxtext/graph_statements.h"

namespace remat::report {

using fxtext::graph_lines;
using fxtext::GraphLine;

/// BackwardOnly: a backward op; ForwardOpInBackward: an op of the joint's forward part that the
/// partition runs in the backward only (its value is needed there alone).
enum class Mark { Saved, Recomputed, ForwardOnly, BackwardOnly, ForwardOpInBackward };

/// What a partition did with the joint graph's nodes.
struct PartitionMarks {
  std::map<std::string, uint64_t> saved;  ///< name -> bytes (from the partition report)
  /// The saved values that are inputs (parameters, primals): the backward reads them anyway.
  std::set<std::string> inputs;
  std::set<std::string> recomputed;
  std::map<std::string, std::string> why;  ///< saved or recomputed node -> the partitioner's reason
  std::map<std::string, uint64_t> flops;   ///< recomputed node -> what recomputing it costs
  std::unordered_set<std::string>
      forward;  ///< nodes the forward graph defines (a lookup per node: hashed)
  std::unordered_set<std::string> backward;  ///< nodes the backward graph defines
  /// The joint graph's forward part (joint_forward_nodes), for the joint page's marks.
  std::unordered_set<std::string> joint_forward;
  std::string source;    ///< where the saved and recomputed sets came from, for the page's legend
  std::string pictures;  ///< the page with the partition's pictures, relative to the graph's
  std::string glossary;  ///< the glossary page the reasons link to (empty: the same page)
  [[nodiscard]] std::optional<Mark> mark(const std::string& name) const;
};

/// Marks for a compile that logged forward and backward graphs but no partition record (PyTorch's
/// own logs): saved = the backward's inputs other than tangents, with their annotated bytes;
/// recomputed = statements both graphs compute.
PartitionMarks marks_from_graphs(const std::vector<GraphLine>& forward,
                                 const std::vector<GraphLine>& backward);

/// The nodes of a joint graph's forward part: those that read no tangent, directly or through
/// another node.
std::unordered_set<std::string> joint_forward_nodes(std::string_view text,
                                                    const std::vector<GraphLine>& nodes);

/// The page body for one graph artifact. `marks` only for a joint graph with a partition.
std::string graph_html(std::string_view title, std::string_view text, const PartitionMarks* marks,
                       std::string_view text_url);
/// The same body appended to `out`, from the nodes `graph_lines(text)` found.
void append_graph_html(std::string& out, std::string_view title, std::string_view text,
                       const std::vector<GraphLine>& nodes, const PartitionMarks* marks,
                       std::string_view text_url);

}  // namespace remat::report
