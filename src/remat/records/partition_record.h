// PartitionRecord: what a partition saves for the backward and recomputes in it, and why, as it
// travels in a TORCH_TRACE log (the `remat_partition` artifact), in `remat partition -o`'s
// report.json and in `remat compile`'s output. One writer (write_json) and one reader
// (read_partition_record, with a JSON path in every error) for every layer: partition/ fills it,
// report/ and the CLI read it, and PyTorch's own partitions read off its graphs become one too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/records/memory_curve.h"
#include "remat/support/expected.h"

namespace remat::json {
class JsonWriter;
}

namespace remat::records {

/// The `schema` of a record, which `remat info` recognizes.
inline constexpr std::string_view kPartitionRecordSchema = "remat-partition-report/1";

struct SavedValue {
  std::string name;
  int64_t bytes = 0;
  std::string reason;
  std::string shape;              ///< `f32[4, 4]`; empty for a value that is no tensor
  std::optional<int64_t> region;  ///< the checkpoint region (ac_graph_id) that computed it
  /// A joint input's storage (a parameter, a primal): the backward reads it anyway, so saving it
  /// costs no activation memory. Written as `"input": true`.
  bool input = false;
  /// Kept in host memory between the forward and the backward (the optimum's third choice):
  /// no activation memory on the device, a transfer out and back. Written as `"offloaded": true`.
  bool offloaded = false;
};
struct RecomputedNode {
  std::string name;
  std::string target;
  std::string reason;
  std::optional<int64_t> flops;  ///< what recomputing it costs; unknown off PyTorch's graphs
};
struct BannedNode {
  std::string name;
  std::string reason;
};

/// A record's saved values split into those the user can act on (activations), those kept in
/// host memory (offloaded) and those the backward reads anyway (parameters, primals), each the
/// largest first.
struct SavedSplit {
  std::vector<const SavedValue*> activations, inputs, offloaded;
  uint64_t activation_bytes = 0, input_bytes = 0, offloaded_bytes = 0;
};

/// A ban's reason for a primal input: never recomputed anyway, so not worth a line of the text.
inline constexpr std::string_view kPrimalInputBan = "primal input";

struct PartitionRecord {
  std::string strategy;  ///< `default`, `min-cut`, `PyTorch's partition`
  std::string stage;     ///< the step that chose the saved set, in words
  std::vector<SavedValue> saved_values;
  std::vector<std::string> saved_symints;
  std::vector<RecomputedNode> recomputed;
  std::vector<BannedNode> banned;
  std::optional<double> cut_value;  ///< min-cut only
  int64_t saved_bytes_total = 0;
  /// What saving costs in memory: the distinct storages the saved values keep alive, other than
  /// the inputs' (a view or detach shares its base's storage). PyTorch's memory-budget tests
  /// measure this with the allocator. Unknown off PyTorch's graphs.
  std::optional<int64_t> activation_bytes;
  std::optional<int64_t> recompute_flops;  ///< unknown off PyTorch's graphs
  /// Peak of live tensor bytes running the forward then the backward, freeing each value after
  /// its last use (inputs and saved values count while they live).
  int64_t peak_memory_bytes = 0;
  /// False for a record written before remat marked the inputs among the saved values (not one
  /// value says `input`): its saved values cannot be split into activations and inputs.
  bool inputs_marked = true;
  std::vector<std::string> notes;
  /// The numbers of the report's pictures, when the partitioner was asked for them.
  std::optional<PartitionCharts> charts;

  [[nodiscard]] SavedSplit split_saved() const;
  /// The readable report: the saved activations first (the largest first), the inputs the
  /// backward reads anyway in one line, what is recomputed, what is banned (primal inputs
  /// counted, not listed), then how the set was chosen.
  [[nodiscard]] std::string text() const;
  [[nodiscard]] std::string json() const;  ///< a document of its own, with `schema`
  void write_json(json::JsonWriter& w) const;
};

/// Reads what PartitionRecord::json() writes; an error names `file` and the JSON path.
Expected<PartitionRecord> read_partition_record(std::string_view text, const std::string& file);

}  // namespace remat::records
