// fxgraph-json/1#partition files: per-strategy summaries of a partition (saved values, bytes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "remat/ir/raw_json.h"
#include "remat/support/expected.h"

namespace remat {

inline constexpr std::string_view kPartitionSchema = "fxgraph-json/1#partition";

/// What one partitioning strategy (`min_cut`, `default`, ...) saved and recomputed.
struct StrategySummary {
  std::string strategy;
  std::vector<std::string> saved_values;  ///< in forward-output order
  std::vector<std::pair<std::string, int64_t>> saved_values_bytes;
  std::optional<int64_t> saved_bytes_total;
  std::vector<std::string> bw_placeholders;
  std::optional<int64_t> fw_num_nodes;
  std::optional<int64_t> bw_num_nodes;
  std::vector<std::string> recomputed_in_bw;
  RawJsonFields extras;
  friend bool operator==(const StrategySummary&, const StrategySummary&) = default;
};

struct PartitionSummary {
  std::string model;
  std::vector<StrategySummary> strategies;  ///< in file order
  RawJsonFields extras;                     ///< provenance, the joint graph's counts, ...
  friend bool operator==(const PartitionSummary&, const PartitionSummary&) = default;
};

/// Reads a summary; a top-level object with `saved_values` is a strategy. Checks that byte
/// counts name saved values and add up to `saved_bytes_total`.
Expected<PartitionSummary> read_partition_json(std::string_view text, const std::string& file);
std::string write_partition_json(const PartitionSummary& summary);

}  // namespace remat
