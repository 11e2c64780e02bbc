// A mixed-integer linear program and its solution by HiGHS (the C++ library, built by
// tools/setup.sh from PyPI's highspy source: Debian 12 packages no HiGHS). HiGHS over Debian's
// CBC 2.10, measured on the optimal partition of GPT-2, 4 layers, at budget 0.5 (1,546 columns,
// 1,916 rows): HiGHS proves the optimum in 2.0 s (26 branch-and-bound nodes), CBC in 82 s
// (52,983 nodes), and CBC's library crashed in its preprocessing on that program.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "remat/support/expected.h"

namespace remat::partition {

/// Minimise the objective over columns with bounds (some integer) subject to ranged rows.
class MilpProblem {
 public:
  int add_column(std::string name, double lower, double upper, double objective, bool integer);
  /// Both bounds of `column` to `value`.
  void fix_column(int column, double value) {
    columns_.at(static_cast<size_t>(column)).lower = value;
    columns_.at(static_cast<size_t>(column)).upper = value;
  }
  /// lower <= sum(coefficient * column) <= upper.
  void add_row(std::vector<std::pair<int, double>> terms, double lower, double upper);

  struct Column {
    std::string name;
    double lower, upper, objective;
    bool integer;
  };
  struct Row {
    std::vector<std::pair<int, double>> terms;
    double lower, upper;
  };
  [[nodiscard]] const std::vector<Column>& columns() const { return columns_; }
  [[nodiscard]] const std::vector<Row>& rows() const { return rows_; }

 private:
  std::vector<Column> columns_;
  std::vector<Row> rows_;
};

inline constexpr double kMilpInfinity = 1e30;

struct MilpOptions {
  double time_limit_seconds = 60;
  /// Stop once (best - bound) / |best| is at most this; 0 proves the optimum.
  double relative_gap = 0;
  /// A feasible assignment to start from (every column), or empty.
  std::vector<double> start;
};

enum class MilpStatus {
  Optimal,     ///< proven (within relative_gap)
  TimeLimit,   ///< stopped by the time limit with a feasible solution
  NoSolution,  ///< stopped by the time limit before finding one
  Infeasible,  ///< proven to have none
};

struct MilpSolution {
  MilpStatus status = MilpStatus::NoSolution;
  std::vector<double> values;  ///< per column; empty without a solution
  double objective = 0;        ///< of `values`
  double bound = 0;            ///< no solution has a lower objective
  double seconds = 0;
  int64_t nodes = 0;  ///< branch-and-bound nodes explored (1: the root's bound was enough)
  /// (objective - bound) / max(|objective|, 1e-9): 0 when proven exactly, at most the relative
  /// gap asked for when Optimal.
  [[nodiscard]] double gap() const;
};

Expected<MilpSolution> solve_milp(const MilpProblem& problem, const MilpOptions& options);
/// The program as an MPS file (for other solvers and for reading): HiGHS's writer.
Status write_mps(const MilpProblem& problem, const std::string& path);

}  // namespace remat::partition
