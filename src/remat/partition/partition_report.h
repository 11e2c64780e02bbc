// PartitionReport: what a partition saves and recomputes, and why (architecture practice 9).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/partition/chart_data.h"
#include "remat/partition/extract.h"

namespace remat::partition {

struct SavedValue {
  std::string name;
  int64_t bytes = 0;
  std::string reason;
  std::string shape;              ///< `f32[4, 4]`; empty for a value that is no tensor
  std::optional<int64_t> region;  ///< the checkpoint region (ac_graph_id) that computed it
  /// A joint input's storage (a parameter, a primal): the backward reads it anyway, so saving it
  /// costs no activation memory. Written as `"input": true`.
  bool input = false;
};
struct RecomputedNode {
  std::string name;
  std::string target;
  std::string reason;
  int64_t flops = 0;  ///< what recomputing it costs (node_flops)
};
struct BannedNode {
  std::string name;
  std::string reason;
};

/// Which step produced a min-cut partition's saved set (aot-partition spec §7.2). The rules a
/// partition keeps depend on it: below a budget of 1 the ban heuristics are switched off step by
/// step, and at budget 0 nothing but the inputs is saved, MUST_SAVE values included.
enum class PartitionStage {
  Cut,                ///< the min-cut with every ban heuristic (budget 1, or within budget)
  RelaxedBans,        ///< far-apart, long-fusible-chain and materialized-backward bans off
  Aggressive,         ///< also the allowlist ban off
  Knapsack,           ///< the knapsack let some banned values be recomputed
  InputsAndMustSave,  ///< nothing left for the knapsack: the inputs and MUST_SAVE values
  InputsOnly,         ///< budget 0: the inputs alone, no cut
  Default,            ///< the default partition (no cut)
};
std::string_view stage_name(PartitionStage stage);

/// The `schema` of PartitionReport::json(), which `remat info` recognizes.
inline constexpr std::string_view kPartitionReportSchema = "remat-partition-report/1";

struct PartitionReport {
  std::string strategy;  ///< `default`, `min-cut`
  PartitionStage stage = PartitionStage::Cut;
  std::vector<SavedValue> saved_values;
  std::vector<std::string> saved_symints;
  std::vector<RecomputedNode> recomputed;
  std::vector<BannedNode> banned;
  std::vector<std::string>
      tags_made_must_save;          ///< nodes the recompute-tag clean-up made MUST_SAVE
  std::optional<double> cut_value;  ///< min-cut only
  int64_t saved_bytes_total = 0;
  /// What saving costs in memory: the distinct storages the saved values keep alive, other than
  /// the inputs' (a view or detach shares its base's storage). PyTorch's memory-budget tests
  /// measure this with the allocator.
  int64_t activation_bytes = 0;
  int64_t recompute_flops = 0;
  /// Peak of live tensor bytes running the forward then the backward, freeing each value after
  /// its last use (inputs and saved values count while they live).
  int64_t peak_memory_bytes = 0;
  std::vector<std::string> notes;
  /// The numbers of the report's pictures, when the caller asked for them (chart_partition).
  std::optional<PartitionCharts> charts;

  [[nodiscard]] std::string text() const;
  [[nodiscard]] std::string json() const;
};

/// Fills the parts every strategy shares: saved values' bytes (reasons from `reasons`, by name),
/// the recomputed nodes (joint forward nodes the backward computes again), FLOPs and peak memory.
/// `origins`: where extract_forward_backward took the graphs' nodes from in `joint`.
PartitionReport describe_partition(const GraphModule& joint, const ForwardBackward& graphs,
                                   const JointOrigins& origins, std::string strategy,
                                   const std::vector<std::pair<std::string, std::string>>& reasons);

/// Bytes of a node's value: tensor numel x itemsize (tuples: the sum; symbolic shapes: by their
/// numel_hint, as PyTorch sizes them), 0 for symbolic values and shapes without a hint.
int64_t value_bytes(const Node& n);
/// The node whose storage `n`'s value lives in: through views, detach and _unsafe_view.
const Node& storage_root(const Node& n);

}  // namespace remat::partition
