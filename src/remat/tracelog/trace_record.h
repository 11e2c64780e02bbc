// One record of a trace log: the glog header, the JSON envelope, the payload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remat/tracelog/compile_id.h"
#include "remat/tracelog/glog_header.h"

namespace remat::tracelog {

struct TraceRecord {
  uint64_t lineno = 0;  ///< 1-based line of the header
  GlogHeader header;
  std::string envelope;  ///< the JSON object as logged
  /// The event: the envelope's first key that is not context (`aot_joint_graph`, `artifact`,
  /// `compilation_metrics`, ...); empty when there is none.
  std::string event;
  std::string metadata;  ///< the event's value, as JSON text
  std::optional<CompileId> compile_id;
  std::optional<int64_t> rank;
  std::string stack;  ///< the `stack` key (records logged outside a compile), JSON text
  std::optional<std::string> has_payload;  ///< the MD5 the envelope expects
  std::string payload;                     ///< the payload lines, tabs stripped, joined by '\n'
  bool payload_md5_ok = true;
  std::vector<std::string> unknown_keys;  ///< keys no part of the format knows
};

/// Whether the record's payload is a graph as print_readable printed it: Dynamo's, AOT's and
/// Inductor's graph dumps (`*_graph`) and graph artifacts (`"name": "..._graph"`).
inline bool holds_printed_graph(const TraceRecord& r) {
  bool graph_event = r.event.ends_with("_graph") ||
                     (r.event == "artifact" && r.metadata.find("graph\"") != std::string::npos);
  return graph_event && r.payload.find("(torch.nn.Module):") != std::string::npos;
}

}  // namespace remat::tracelog
