// remat partition FILE: split a joint graph into forward and backward graphs, with a report.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/cli/report_options.h"
#include "remat/driver/partition_files.h"
#include "remat/partition/memory_budget.h"
#include "remat/partition/partition_charts.h"
#include "remat/partition/partition_joint.h"
#include "remat/partition/validity.h"
#include "remat/print/printer.h"
#include "remat/support/file_io.h"

namespace remat::cli {
namespace {

struct PartitionArgs {
  std::string file, compile, out_dir, html, against, strategy = "min-cut", dump_flow, dump_passes,
                                                     knapsack = "dp";
  std::string budget = "1", dump_milp, offload_bandwidth, flops_per_second;
  double time_limit = 60, gap_percent = 0;
  bool pareto = false, within_regions = false, ban_unknown_ops = false;
  bool explain = false, verify = false, overwrite = false;
  struct {  // given or not: what applies to which strategy
    const CLI::Option *budget, *time_limit, *gap, *dump_milp, *within_regions, *offload, *knapsack,
        *pareto, *dump_flow, *dump_passes;
  } flags{};
};

// The min-cut's options are not the optimum's, nor the other way round.
Status refuse_other_strategies_options(const PartitionArgs& a) {
  const auto& f = a.flags;
  if (a.strategy == "optimal")
    return refuse_options("optimal", {f.knapsack, f.dump_flow}, "min-cut");
  REMAT_TRY(refuse_min_cut_options(a.strategy,
                                   {f.budget, f.knapsack, f.pareto, f.dump_flow, f.dump_passes}));
  return refuse_options(a.strategy, {f.time_limit, f.gap, f.dump_milp, f.within_regions, f.offload},
                        "optimal");
}

// --pareto: saved bytes against recompute FLOPs at each budget of the sweep (and the optimum's
// FLOPs at each point's memory, for the optimal strategy).
void print_pareto(const partition::PartitionCharts& c, bool yardstick) {
  fmt::print("{:>6} {:>16} {:>14} {:>16} {:>8}{}\n", "budget", "activation bytes", "saved bytes",
             "recompute FLOPs", "saved", yardstick ? "    optimum FLOPs" : "");
  for (size_t i = 0; i < c.budget.size(); ++i) {
    const partition::BudgetPoint& b = c.budget[i];
    std::string mark = c.chosen == i && c.knee == i ? "  <- this partition, the knee"
                       : c.chosen == i              ? "  <- this partition"
                       : c.knee == i                ? "  <- the knee"
                                                    : "";
    auto best = std::find_if(c.optimum.begin(), c.optimum.end(),
                             [&](const auto& o) { return std::abs(o.budget - b.budget) < 1e-9; });
    std::string optimum = !yardstick                ? std::string()
                          : best != c.optimum.end() ? fmt::format(" {:>16}", best->recompute_flops)
                                                    : fmt::format(" {:>16}", "none");
    fmt::print("{:>6.2f} {:>16} {:>14} {:>16} {:>8}{}{}\n", b.budget,
               b.activation_bytes.value_or(0), b.saved_bytes, b.recompute_flops, b.saved_values,
               optimum, mark);
  }
}

Expected<int> run_partition(const PartitionArgs& a) {
  REMAT_TRY(refuse_other_strategies_options(a));
  bool optimal = a.strategy == "optimal";
  Expected<GraphModule> joint = load_graph(a.file, BadTargets::Refuse, a.compile);
  REMAT_TRY(joint);
  driver::PartitionFiles files;
  files.out_dir = a.out_dir;
  files.overwrite = a.overwrite;
  files.inputs = {a.file, a.against};
  files.flow = a.dump_flow;
  files.html = a.html;
  files.version = REMAT_VERSION;
  files.command_line = app_command_line();
  // Read before anything is written: a bad record leaves no output behind.
  if (!a.against.empty()) {
    Expected<records::PartitionRecord> other = read_partition_record_file(a.against);
    REMAT_TRY(other);
    files.against.emplace(std::move(*other), display_name(a.against));
  }
  partition::MinCutConfig config;
  Expected<partition::MemoryBudget> memory_budget = partition::parse_memory_budget(a.budget);
  REMAT_TRY(memory_budget);
  config.knapsack = *partition::parse_knapsack_solver(a.knapsack);  // CLI11 checked the name
  config.passes.verify_each = a.verify;
  config.ban_recompute_unknown_ops = a.ban_unknown_ops;
  Status dump_failed;
  if (!a.dump_passes.empty()) {
    REMAT_TRY(make_folder(a.dump_passes));
    config.passes.after_each = [&, index = 0](const passes::PassRun& run, std::string_view,
                                              const GraphModule& m) mutable {
      if (!run.result.changed) return;
      std::string file = std::to_string(++index) + "-" + run.name + ".txt";
      Status s = write_file_atomic((std::filesystem::path(a.dump_passes) / file).string(),
                                   print_readable(m, PrintOptions::readable()).text + "\n");
      if (!s && dump_failed.ok()) dump_failed = std::move(s);
    };
  }
  auto strategy = *partition::parse_strategy(a.strategy);
  partition::OptimalOptions optimal_options;
  optimal_options.time_limit_seconds = a.time_limit;
  optimal_options.relative_gap = a.gap_percent / 100;
  optimal_options.dump_mps = a.dump_milp;
  optimal_options.within_regions = a.within_regions;
  if (!a.offload_bandwidth.empty()) {
    Expected<double> bandwidth =
        partition::parse_transfer_rate(a.offload_bandwidth, "--offload-bandwidth");
    REMAT_TRY(bandwidth);
    Expected<double> rate = partition::parse_flop_rate(a.flops_per_second, "--flops-per-second");
    REMAT_TRY(rate);
    optimal_options.offload_bandwidth = *bandwidth;
    optimal_options.flops_per_second = *rate;
  }
  auto p =
      partition::partition_for_budget(*joint, strategy, config, *memory_budget, optimal_options);
  if (!p) {
    Diagnostics errors = p.errors();
    for (Diagnostic& d : errors) d.file = display_name(a.file);
    return errors;
  }
  REMAT_TRY(dump_failed);
  partition::PartitionReport& rep = p->report;
  if (a.pareto || !a.html.empty()) {
    partition::ChartOptions chart_options;
    // The optimum's page and --pareto draw the yardstick: the optimum at every sweep point.
    if (optimal) {
      chart_options.optimum_time_limit = a.time_limit;
      chart_options.optimum_relative_gap = optimal_options.relative_gap;
    }
    if (joint->graph().size() > 20'000)  // the sweep partitions the graph eleven times more
      chart_options.progress = [](std::string_view what) {
        fmt::print(stderr, "charts: {}\n", what);
      };
    auto charts = partition::chart_partition(*joint, *p, strategy, config, chart_options);
    REMAT_TRY(charts);
    rep.charts = std::move(*charts);
  }
  if (a.pareto) print_pareto(*rep.charts, optimal);
  REMAT_TRY(driver::write_partition_files(*joint, *p, display_name(a.file), files));
  if (!a.html.empty()) std::fprintf(stderr, "html: %s\n", a.html.c_str());
  std::string text = rep.text();
  fmt::print("{}", a.explain ? text : text.substr(0, text.find('\n') + 1));
  if (!a.verify) return kExitOk;
  std::vector<std::string> violations = partition::check_validity(*joint, p->graphs, rep);
  for (const std::string& v : violations) fmt::print("violation: {}\n", v);
  fmt::print("verify: {} violations\n", violations.size());
  return violations.empty() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_partition_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "partition",
      "Partition a joint graph into forward and backward graphs as PyTorch's partitioners do "
      "(min-cut rematerialization or the default partition), or optimally: the least recompute "
      "FLOPs within the activation memory budget (an integer program). Writes DIR/forward.json, "
      "DIR/backward.json, their readable .txt twins, DIR/report.json and DIR/report.txt, and "
      "prints the report: every saved value with its bytes and reason, every recomputed node and "
      "why.");
  auto a = std::make_shared<PartitionArgs>();
  cmd->add_option("joint", a->file,
                  "the joint graph (fxgraph-json, readable text, or a TORCH_TRACE log)")
      ->required();
  add_compile_option(*cmd, a->compile);
  cmd->add_option("--strategy", a->strategy,
                  "min-cut, default, or optimal (the least recompute FLOPs within --budget)")
      ->check(CLI::IsMember({"min-cut", "default", "optimal"}));
  cmd->add_option("-o,--output-dir", a->out_dir, "where to write the graphs and the report");
  cmd->add_flag("--overwrite", a->overwrite,
                "replace the output folder, if remat wrote it (it holds .remat-output)");
  cmd->add_flag("--explain", a->explain, "print the whole report (default: the summary line)");
  cmd->add_flag("--ban-unknown-ops", a->ban_unknown_ops,
                "under a budget, never recompute an op outside remat's registry or one it knows as "
                "random (more careful than PyTorch, which bans only its random and "
                "compute-intensive ops there)");
  auto* html = cmd->add_option(
      "--html", a->html,
      "write the partition as one HTML page: memory over time, the budget curve, the region map, "
      "the tables, and the joint graph with each node marked");
  cmd->add_option("--against", a->against,
                  "with --html: another partition record of this joint (report.json of an earlier "
                  "remat partition -o): the page shows what changed fate between the two")
      ->needs(html);
  a->flags.budget =
      cmd->add_option("--budget", a->budget,
                      "activation memory budget (min-cut, optimal): PyTorch's fraction "
                      "in [0, 1] of the min-cut's activation memory (1 = no budget), "
                      "or bytes such as 24MB (K, M, G = 1024^n): for min-cut, the "
                      "largest fraction whose activation memory fits");
  a->flags.time_limit = cmd->add_option("--time-limit", a->time_limit,
                                        "optimal: seconds the MILP solver may take (default 60); "
                                        "past it, the best found and its gap to the optimum")
                            ->check(CLI::PositiveNumber);
  a->flags.gap = cmd->add_option("--gap", a->gap_percent,
                                 "optimal: stop once the best found is within this many percent of "
                                 "the optimum (default 0: prove it)")
                     ->check(CLI::Range(0.0, 100.0));
  a->flags.dump_milp =
      cmd->add_option("--dump-milp", a->dump_milp,
                      "optimal: write the integer program as a free-MPS file (for other solvers)");
  a->flags.within_regions = cmd->add_flag(
      "--within-regions", a->within_regions,
      "optimal: decide only inside checkpoint regions, keeping the plain min-cut's choice "
      "outside them: the optimum a policy can reproduce (remat policy)");
  CLI::Option* offload = cmd->add_option(
      "--offload-bandwidth", a->offload_bandwidth,
      "optimal: offload as a third choice: a saved value may wait in host memory (outside the "
      "budget), moved out and back at this rate (50GB/s); needs --flops-per-second");
  auto* flops_rate = cmd->add_option(
      "--flops-per-second", a->flops_per_second,
      "optimal, with --offload-bandwidth: the device's compute rate (100T), to weigh a transfer "
      "against recomputing");
  a->flags.offload = offload;
  offload->needs(flops_rate);
  flops_rate->needs(offload);
  a->flags.knapsack =
      cmd->add_option("--knapsack", a->knapsack,
                      "knapsack solver for the budget: dp, greedy, exact, or dynamic "
                      "(dp at the knee budget up to --budget)")
          ->check(CLI::IsMember({"dp", "greedy", "exact", "dynamic"}));
  a->flags.pareto =
      cmd->add_flag("--pareto", a->pareto,
                    "print saved bytes against recompute FLOPs for budgets 0, 0.1, ..., 1 (with "
                    "--strategy optimal, also the optimum's FLOPs at each point's activation "
                    "memory)");
  cmd->add_flag("--verify", a->verify,
                "check the partition's invariants (exit 1 on a violation), and the graph's after "
                "each pass before the cut");
  a->flags.dump_flow = cmd->add_option(
      "--dump-flow", a->dump_flow, "write the min-cut flow network as an fxgraph-json/1#flow file");
  a->flags.dump_passes = cmd->add_option(
      "--dump-passes", a->dump_passes,
      "write the joint graph as readable text after each pass before the cut that changed it "
      "(DIR/1-dce.txt, DIR/2-cse.txt, ...)");
  run_verb(*cmd, a, exit_code, &run_partition);
}

}  // namespace remat::cli
