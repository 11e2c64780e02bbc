// The `remat_partition` artifact (a PartitionRecord) as HTML: the one-row summary for the
// index and the full page (pictures, then tables of saved values, recomputed nodes, bans, notes),
// each value with the partitioner's reason, bytes with units and counts with thousands separators.
#pragma once

#include <string>
#include <string_view>

#include "remat/records/partition_record.h"
#include "remat/report/graph_html.h"
#include "remat/report/partition_charts_svg.h"

namespace remat::report {

/// One sentence for the index: the activations saved, what is recomputed, the inputs kept.
std::string partition_sentence(const records::PartitionRecord& partition);
/// The summary table: strategy, the stage that chose the saved set, counts, bytes, FLOPs, peak.
std::string partition_summary(const records::PartitionRecord& partition);
/// The whole page body for one partition record of compile `compile_key`: the summary, the
/// pictures (when the record has charts), saved values by size, recomputed nodes, bans, notes.
/// `links`, when given, link node names to their lines on the joint graph's page; each reason
/// links to its entry on `glossary` (the page, `../glossary.html`; empty: this page).
std::string partition_page(const records::PartitionRecord& partition, std::string_view compile_key,
                           const NodeLinks* links, std::string_view glossary);
/// The saved and recomputed nodes of a record, with their bytes, FLOPs and reasons (the forward
/// and backward sets stay empty: the graphs give them).
PartitionMarks marks_from_record(const records::PartitionRecord& partition);

}  // namespace remat::report
