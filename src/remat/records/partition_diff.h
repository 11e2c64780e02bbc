// Two partitions of the same joint graph side by side (two strategies, two budgets, PyTorch's and
// remat's, two PyTorch versions' logs): the values whose fate changed between saved and
// recomputed, with what that costs in bytes and FLOPs, and the totals of each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/records/partition_record.h"

namespace remat::records {

/// What a partition does with one value of the joint graph: saves it for the backward, computes
/// it again there, or neither (it is computed once, in the forward or in the backward).
enum class Fate { Saved, Recomputed, Neither };
std::string_view fate_name(Fate fate);  ///< `saved`, `recomputed`, `computed once`

struct FateChange {
  std::string name;
  Fate before = Fate::Neither, after = Fate::Neither;
  int64_t bytes = 0;             ///< its bytes, from whichever side saves it
  std::optional<int64_t> flops;  ///< what recomputing it costs, from the side that does
  std::string reason;            ///< why the second partition saves or recomputes it
  bool input = false;            ///< a saved input (no activation memory)
};

/// A partition's totals, as the diff compares them.
struct PartitionTotals {
  size_t activations = 0, inputs = 0, recomputed = 0;
  int64_t activation_bytes = 0;  ///< the record's, else its activations' bytes
  std::optional<int64_t> recompute_flops;
  int64_t peak_memory_bytes = 0;
};
PartitionTotals totals_of(const PartitionRecord& record);

struct PartitionDiff {
  PartitionTotals before, after;
  /// The values whose fate differs, saved -> recomputed first, then recomputed -> saved, then
  /// the rest; the largest first within each.
  std::vector<FateChange> changes;
  size_t shared = 0;  ///< values both partitions name (none: probably not the same joint graph)
};

PartitionDiff diff_partitions(const PartitionRecord& before, const PartitionRecord& after);

/// One line of the totals' comparison, as `remat diff` and the diff page show it.
struct TotalRow {
  enum class Unit { Count, Bytes, Flops };
  std::string_view label;  ///< `saved activations`, `activation memory`, ...
  int64_t before = 0, after = 0;
  Unit unit = Unit::Count;
};
/// The totals compared, in the order they are shown (recompute cost only when both know it).
std::vector<TotalRow> total_rows(const PartitionDiff& diff);

}  // namespace remat::records
