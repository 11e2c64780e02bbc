#include "remat/partition/milp.h"

#include <Highs.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace remat::partition {

int MilpProblem::add_column(std::string name, double lower, double upper, double objective,
                            bool integer) {
  columns_.push_back({std::move(name), lower, upper, objective, integer});
  return static_cast<int>(columns_.size()) - 1;
}

void MilpProblem::add_row(std::vector<std::pair<int, double>> terms, double lower, double upper) {
  rows_.push_back({std::move(terms), lower, upper});
}

double MilpSolution::gap() const {
  if (values.empty()) return 0;
  return std::max(0.0, objective - bound) / std::max(std::abs(objective), 1e-9);
}

namespace {

HighsLp to_highs(const MilpProblem& problem) {
  const auto& cols = problem.columns();
  const auto& rows = problem.rows();
  auto bound = [](double v) {
    return v >= kMilpInfinity ? kHighsInf : v <= -kMilpInfinity ? -kHighsInf : v;
  };
  HighsLp lp;
  lp.num_col_ = static_cast<HighsInt>(cols.size());
  lp.num_row_ = static_cast<HighsInt>(rows.size());
  for (const auto& c : cols) {
    lp.col_cost_.push_back(c.objective);
    lp.col_lower_.push_back(bound(c.lower));
    lp.col_upper_.push_back(bound(c.upper));
    lp.integrality_.push_back(c.integer ? HighsVarType::kInteger : HighsVarType::kContinuous);
  }
  for (const auto& r : rows) {
    lp.row_lower_.push_back(bound(r.lower));
    lp.row_upper_.push_back(bound(r.upper));
  }
  // By rows, as the program was written.
  HighsSparseMatrix& a = lp.a_matrix_;
  a.format_ = MatrixFormat::kRowwise;
  a.num_col_ = lp.num_col_;
  a.num_row_ = lp.num_row_;
  a.start_ = {0};
  for (const auto& r : rows) {
    for (const auto& [c, v] : r.terms) {
      a.index_.push_back(c);
      a.value_.push_back(v);
    }
    a.start_.push_back(static_cast<HighsInt>(a.index_.size()));
  }
  for (const auto& c : cols) lp.col_names_.push_back(c.name);
  return lp;
}

void quiet(Highs& highs) {
  highs.setOptionValue("output_flag", false);
  // One thread, a fixed seed: the same program gives the same answer on every run.
  highs.setOptionValue("threads", 1);
  highs.setOptionValue("random_seed", 0);
}

double objective_of(const MilpProblem& problem, const std::vector<double>& x) {
  double total = 0;
  for (size_t c = 0; c < x.size(); ++c) total += problem.columns()[c].objective * x[c];
  return total;
}

Expected<MilpSolution> solve_once(const MilpProblem& problem, const MilpOptions& options) {
  auto began = std::chrono::steady_clock::now();
  Highs highs;
  quiet(highs);
  highs.setOptionValue("time_limit", options.time_limit_seconds);
  highs.setOptionValue("mip_rel_gap", options.relative_gap);
  if (highs.passModel(to_highs(problem)) == HighsStatus::kError)
    return error_message("the MILP solver (HiGHS) refused the program");
  if (!options.start.empty()) {
    HighsSolution start;
    start.value_valid = true;
    start.col_value = options.start;
    highs.setSolution(start);
  }
  if (highs.run() == HighsStatus::kError)
    return error_message("the MILP solver (HiGHS) failed: " +
                         highs.modelStatusToString(highs.getModelStatus()));
  MilpSolution s;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  HighsModelStatus status = highs.getModelStatus();
  const HighsInfo& info = highs.getInfo();
  bool has_solution = info.primal_solution_status == kSolutionStatusFeasible;
  if (status == HighsModelStatus::kInfeasible) {
    s.status = MilpStatus::Infeasible;
    return s;
  }
  if (!has_solution) {
    if (status == HighsModelStatus::kTimeLimit) {
      s.status = MilpStatus::NoSolution;
      return s;
    }
    return error_message("the MILP solver (HiGHS) stopped without a solution: " +
                         highs.modelStatusToString(status));
  }
  s.status = status == HighsModelStatus::kOptimal ? MilpStatus::Optimal : MilpStatus::TimeLimit;
  s.values = highs.getSolution().col_value;
  // Integer columns come back within the solver's tolerance of an integer.
  for (size_t c = 0; c < s.values.size(); ++c) {
    if (problem.columns()[c].integer) s.values[c] = std::round(s.values[c]);
  }
  s.objective = info.objective_function_value;
  s.nodes = info.mip_node_count;
  // Optimal may stop within the relative gap asked for: the bound says how close it came.
  s.bound = std::isfinite(info.mip_dual_bound)
                ? std::min(info.mip_dual_bound, s.objective)
                : (s.status == MilpStatus::Optimal ? s.objective : -kHighsInf);
  return s;
}

}  // namespace

Expected<MilpSolution> solve_milp(const MilpProblem& problem, const MilpOptions& options) {
  if (!options.start.empty() && options.start.size() != problem.columns().size())
    return error_message("MILP start: " + std::to_string(options.start.size()) + " values for " +
                         std::to_string(problem.columns().size()) + " columns");
  auto s = solve_once(problem, options);
  REMAT_TRY(s);
  if (s->values.empty() || options.start.empty()) return s;
  // HiGHS 1.16 can return the start's values under another solution's objective (seen with the
  // optimum's offload columns: "optimal" at an objective no solution reaches): then the values
  // are not what it solved, so solve again without the start.
  double got = objective_of(problem, s->values);
  if (std::abs(got - s->objective) > 1e-6 * std::max(1.0, std::abs(s->objective))) {
    MilpOptions plain = options;
    plain.start.clear();
    double spent = s->seconds;
    s = solve_once(problem, plain);
    REMAT_TRY(s);
    s->seconds += spent;
  }
  // Never worse than the start (a time limit may stop the search above it).
  double start = objective_of(problem, options.start);
  if (s->values.empty() || objective_of(problem, s->values) > start + 1e-9 * std::max(1.0, start)) {
    s->values = options.start;
    s->status = s->status == MilpStatus::Optimal ? MilpStatus::TimeLimit : s->status;
    if (s->status == MilpStatus::NoSolution) s->status = MilpStatus::TimeLimit;
  }
  s->objective = objective_of(problem, s->values);
  return s;
}

Status write_mps(const MilpProblem& problem, const std::string& path) {
  Highs highs;
  quiet(highs);
  if (highs.passModel(to_highs(problem)) == HighsStatus::kError ||
      highs.writeModel(path) == HighsStatus::kError)
    return error_message("could not write " + path);
  return {};
}

}  // namespace remat::partition
