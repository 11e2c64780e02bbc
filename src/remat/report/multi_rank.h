// `remat report DIR --all-ranks-html`: one distributed run's per-rank logs as one site, as
// tlparse's multi-rank mode writes it: rank_<n>/ (each rank's report), a landing page with a
// section per rank and tlparse's divergence warnings (compile ids, cache hits and misses,
// collective schedules, tensor metadata, runtime estimations, collectives parity), combined
// chromium events. remat adds what each rank saved and recomputed, compile by compile.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "remat/report/report_builder.h"
#include "remat/support/expected.h"

namespace remat::report {

struct RankLog {
  int rank = 0;
  std::string path;
};

/// The per-rank logs in `dir`: `dedicated_log_torch_trace_rank_<n>*.log` (PyTorch's names), by
/// rank. An error when there are none, or two for one rank.
Expected<std::vector<RankLog>> find_rank_logs(const std::string& dir);

/// Ranks that show the same sequence (of cache results, collectives, tensor metadata).
struct DivergenceGroup {
  std::string sequence;
  std::vector<int> ranks;
};

/// One graph's estimated runtime on its fastest and slowest rank.
struct RuntimeDelta {
  std::string graph;
  int fastest_rank = 0, slowest_rank = 0;
  double fastest_ms = 0, slowest_ms = 0;
};

struct MultiRankResult {
  std::vector<std::pair<int, ReportResult>> ranks;
  bool compile_id_divergence = false;
  std::vector<DivergenceGroup> cache_groups;       ///< more than one group: the ranks diverge
  std::vector<DivergenceGroup> collective_groups;  ///< likewise for the collectives' order
  std::vector<DivergenceGroup> tensor_meta_groups;
  /// By the order the ranks ran their compiled graphs (Inductor's `inductor_graph_execution`
  /// artifacts); empty when no rank logged them. Each group's sequence says from where on it ran.
  std::vector<DivergenceGroup> execution_groups;
  std::optional<size_t> execution_divergence_at;  ///< the first execution (0-based) that differs
  std::vector<RuntimeDelta> runtime_deltas;
  bool runtime_graph_counts_differ = false;
  size_t collectives_parity_problems = 0;  ///< graphs whose schedule and code disagree
  size_t chromium_events = 0;
  [[nodiscard]] bool diverged() const {
    return compile_id_divergence || cache_groups.size() > 1 || collective_groups.size() > 1 ||
           tensor_meta_groups.size() > 1 || runtime_graph_counts_differ ||
           execution_groups.size() > 1;
  }
};

/// Writes the multi-rank site for the logs in `dir` into `out_dir`, whole or not at all (an
/// existing `out_dir` is replaced only with `overwrite`). With `strict`, a bad line in any
/// rank's log is an error.
Expected<MultiRankResult> write_multi_rank_report(const std::string& dir,
                                                  const std::string& out_dir,
                                                  const ReportOptions& options, bool overwrite,
                                                  bool strict);

}  // namespace remat::report
