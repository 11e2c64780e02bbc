// The `remat_partition` artifact (a PartitionReport as JSON) as HTML: the one-row summary for the
// index and the full page of tables (saved values, recomputed nodes, bans, notes), each value with
// the partitioner's reason, bytes with units and counts with thousands separators.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace remat::report {

/// The summary table: strategy, the stage that chose the saved set, counts, bytes, FLOPs, peak.
std::string partition_summary(const nlohmann::ordered_json& partition);
/// The whole page body for one partition record of compile `compile_key`.
std::string partition_page(const nlohmann::ordered_json& partition, std::string_view compile_key);
/// `object[key]` as an unsigned number, 0 when absent or of another type.
uint64_t unsigned_field(const nlohmann::ordered_json& object, const char* key);

}  // namespace remat::report
