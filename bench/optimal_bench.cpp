// The optimum as a yardstick (issue 29): how far PyTorch's budget choice (the min-cut, then its
// knapsack over banned values) is from the least recompute at the same activation memory, on
// the zoo at budgets 0.1 ... 1, and how long the MILP solver takes as the joint graph grows.
// Prints two tables; asserts nothing (tests/partition/optimal_partition_test.cpp holds the
// guarantees).  bench_optimal [TIME_LIMIT_SECONDS=60] [--sizes-only]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "remat/autodiff/joint_graph.h"
#include "remat/models/model_zoo.h"
#include "remat/partition/memory_budget.h"
#include "remat/partition/optimal_partition.h"
#include "remat/partition/partition_joint.h"

using namespace remat;

namespace {

GraphModule joint_of(const char* model, int64_t layers, const char* plan) {
  models::ModelOptions o;
  o.layers = layers;
  o.checkpoint = *models::CheckpointPlan::parse(plan);
  auto forward = models::find_model(model)->trace(o);
  auto joint = autodiff::build_joint_graph(*forward);
  if (!forward.ok() || !joint.ok()) {
    fmt::print(stderr, "bench_optimal: cannot build {}\n", model);
    std::exit(1);
  }
  return std::move(*joint);
}

std::string status_text(const partition::OptimalOutcome& o) {
  return o.status == partition::MilpStatus::Optimal ? "optimal"
                                                    : fmt::format("gap {:.2f}%", 100 * o.gap);
}

void distance_from_optimal(double time_limit) {
  struct Case {
    const char* model;
    int64_t layers;
    const char* plan;
  };
  fmt::print("PyTorch's budget choice against the optimum at the same activation memory\n");
  fmt::print("{:<22} {:>6} {:>10} {:>14} {:>14} {:>8} {:>10} {:>8} {:>10} {:>8}\n", "model",
             "budget", "memory", "min-cut FLOPs", "optimum FLOPs", "extra", "solver", "seconds",
             "least mem", "extra");
  for (const Case& c :
       {Case{"mlp", 4, "none"}, Case{"gpt2", 4, "none"}, Case{"gpt2", 4, "each-layer"},
        Case{"convnet", 2, "none"}, Case{"embed-ce", 1, "none"}}) {
    GraphModule joint = joint_of(c.model, c.layers, c.plan);
    std::string name = fmt::format("{} {}L {}", c.model, c.layers, c.plan);
    for (int tenth = 1; tenth <= 10; ++tenth) {
      partition::MinCutConfig config;
      config.memory_budget = tenth / 10.0;
      auto cut = partition::partition_joint(joint, partition::Strategy::MinCut, config);
      if (!cut.ok()) continue;
      partition::OptimalOptions o;
      o.budget_bytes = cut->report.activation_bytes.value_or(0);
      o.time_limit_seconds = time_limit;
      auto best = partition::optimal_partition(joint, config, o);
      if (!best.ok()) {
        fmt::print("{:<22} {:>6.1f} error: {}\n", name, config.memory_budget,
                   format_all(best.errors()));
        continue;
      }
      int64_t f_cut = cut->report.recompute_flops.value_or(0);
      int64_t f_best = best->partition.report.recompute_flops.value_or(0);
      auto share = [](int64_t theirs, int64_t ours) {
        return theirs == 0 ? std::string("-")
                           : fmt::format("{:.1f}%", 100.0 * static_cast<double>(theirs - ours) /
                                                        static_cast<double>(theirs));
      };
      // Extra memory at equal recompute: the least memory that recomputes no more than the cut.
      partition::OptimalOptions frugal = o;
      frugal.recompute_flops_at_most = f_cut;
      auto least = partition::optimal_partition(joint, config, frugal);
      int64_t m_cut = *o.budget_bytes;
      int64_t m_least = least.ok() ? least->partition.report.activation_bytes.value_or(0) : m_cut;
      fmt::print("{:<22} {:>6.1f} {:>10} {:>14} {:>14} {:>8} {:>10} {:>8.2f} {:>10} {:>8}\n", name,
                 config.memory_budget, partition::bytes_text(m_cut), f_cut, f_best,
                 share(f_cut, f_best), status_text(best->outcome), best->outcome.seconds,
                 partition::bytes_text(m_least), share(m_cut, m_least));
    }
  }
  fmt::print(
      "(extra: the share of the min-cut's recomputed FLOPs the optimum does without at its "
      "memory; least mem: the least activation memory recomputing no more than the min-cut, and "
      "the share of the min-cut's memory it does without)\n\n");
}

void solver_time_by_size(double time_limit) {
  fmt::print("MILP solver time as the joint graph grows (gpt2, budget 0.5, limit {} s)\n",
             time_limit);
  fmt::print("{:>7} {:>8} {:>8} {:>8} {:>12} {:>10} {:>10}\n", "layers", "nodes", "columns", "rows",
             "solver", "solve s", "total s");
  for (int64_t layers : {1, 6, 32, 128}) {  // about 100, 1k, 5k and 20k nodes
    GraphModule joint = joint_of("gpt2", layers, "none");
    partition::MinCutConfig config;
    config.memory_budget = 0.5;
    partition::OptimalOptions o;
    o.time_limit_seconds = time_limit;
    auto began = std::chrono::steady_clock::now();
    auto best = partition::optimal_partition(joint, config, o);
    double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (!best.ok()) {
      fmt::print("{:>7} error: {}\n", layers, format_all(best.errors()));
      continue;
    }
    fmt::print("{:>7} {:>8} {:>8} {:>8} {:>12} {:>10.2f} {:>10.2f}\n", layers, joint.graph().size(),
               best->outcome.columns, best->outcome.rows, status_text(best->outcome),
               best->outcome.seconds, total);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double time_limit = argc > 1 ? std::atof(argv[1]) : 60;
  bool sizes_only = argc > 2 && std::string(argv[2]) == "--sizes-only";
  if (!sizes_only) distance_from_optimal(time_limit);
  solver_time_by_size(time_limit);
  return 0;
}
