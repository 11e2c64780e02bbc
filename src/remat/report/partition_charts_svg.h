// The pictures of a partition, as SVG that remat writes (no script, no network: the report opens
// from file:// and prints): memory over the step (`id="memory-timeline"`), saved bytes against
// recomputed FLOPs across the memory budget (`id="budget-curve"`), and where the checkpoint
// regions, saved values and recomputations sit in the joint graph (`id="region-map"`). They read
// a partition record's `charts`; long graphs arrive sampled, and marks closer than a pixel are
// drawn as one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "remat/records/partition_record.h"

namespace remat::report {

/// Where a node's line is on the joint graph's page: links from the pictures and tables.
struct NodeLinks {
  std::string page;                                 ///< `aot_joint_graph_1.html`
  std::unordered_map<std::string, size_t> line_of;  ///< 1-based
  /// `page#L12`, or nullopt for a node the page does not show.
  [[nodiscard]] std::optional<std::string> href(std::string_view node) const;
};

/// Each figure of a record's charts (the budget curve also places the record's own numbers); a
/// figure whose data the record lacks says so.
std::string memory_timeline_figure(const records::PartitionCharts& charts, const NodeLinks* links);
std::string budget_curve_figure(const records::PartitionRecord& record);
std::string region_map_figure(const records::RegionMap& map, const NodeLinks* links);

}  // namespace remat::report
