// remat partition FILE: split a joint graph into forward and backward graphs, with a report.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/io/flow_network.h"
#include "remat/io/graph_json.h"
#include "remat/partition/partition_joint.h"
#include "remat/partition/validity.h"
#include "remat/print/printer.h"
#include "remat/support/file_io.h"

namespace remat::cli {
namespace {

FlowNetwork to_flow_file(const partition::FlowGraph& g, const partition::PartitionReport& report,
                         const std::string& name) {
  FlowNetwork f;
  f.graph_name = name;
  f.nodes = g.names();
  for (const auto& e : g.edges())
    f.edges.push_back({g.names()[e.from], g.names()[e.to], e.capacity});
  f.cut_value = report.cut_value;
  return f;
}

}  // namespace

void add_partition_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "partition",
      "Partition a joint graph into forward and backward graphs as PyTorch's partitioners do "
      "(min-cut rematerialization or the default partition). Writes DIR/forward.json, "
      "DIR/backward.json, their readable .txt twins, DIR/report.json and DIR/report.txt, and "
      "prints "
      "the report: every saved value with its bytes and reason, every recomputed node and why.");
  struct Args {
    std::string file, out_dir, strategy = "min-cut", dump_flow, dump_passes, knapsack = "dp";
    double budget = 1.0;
    bool pareto = false;
    bool explain = false, verify = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("joint", a->file, "the joint graph (fxgraph-json or readable text)")->required();
  cmd->add_option("--strategy", a->strategy, "min-cut or default")
      ->check(CLI::IsMember({"min-cut", "default"}));
  cmd->add_option("-o,--output-dir", a->out_dir, "where to write the graphs and the report");
  cmd->add_flag("--explain", a->explain, "print the whole report (default: the summary line)");
  auto* budget = cmd->add_option("--budget", a->budget,
                                 "activation memory budget in [0, 1] (min-cut; 1 = no budget)")
                     ->check(CLI::Range(0.0, 1.0));
  auto* knapsack = cmd->add_option("--knapsack", a->knapsack,
                                   "knapsack solver for the budget: dp, greedy, exact, or dynamic "
                                   "(dp at the knee budget up to --budget)")
                       ->check(CLI::IsMember({"dp", "greedy", "exact", "dynamic"}));
  auto* pareto =
      cmd->add_flag("--pareto", a->pareto,
                    "print saved bytes against recompute FLOPs for budgets 0, 0.1, ..., 1");
  cmd->add_flag("--verify", a->verify,
                "check the partition's invariants (exit 1 on a violation), and the graph's after "
                "each pass before the cut");
  auto* dump_flow = cmd->add_option(
      "--dump-flow", a->dump_flow, "write the min-cut flow network as an fxgraph-json/1#flow file");
  auto* dump_passes = cmd->add_option(
      "--dump-passes", a->dump_passes,
      "write the joint graph as readable text after each pass before the cut that changed it "
      "(DIR/1-dead-code.txt, DIR/2-common-subexpressions.txt, ...)");
  cmd->callback([a, budget, knapsack, pareto, dump_flow, dump_passes, &exit_code] {
    if (Status s =
            refuse_min_cut_options(a->strategy, {budget, knapsack, pareto, dump_flow, dump_passes});
        !s) {
      exit_code = report(s.errors());
      return;
    }
    Expected<GraphModule> joint = load_graph(a->file);
    if (!joint) {
      exit_code = report(joint.errors());
      return;
    }
    partition::MinCutConfig config;
    config.memory_budget = a->budget;
    config.knapsack = a->knapsack == "greedy"    ? partition::KnapsackSolver::Greedy
                      : a->knapsack == "exact"   ? partition::KnapsackSolver::Exact
                      : a->knapsack == "dynamic" ? partition::KnapsackSolver::Dynamic
                                                 : partition::KnapsackSolver::Dp;
    config.passes.verify_each = a->verify;
    Status dump_failed;
    if (!a->dump_passes.empty()) {
      if (Status s = make_folder(a->dump_passes); !s) {
        exit_code = report(s.errors());
        return;
      }
      config.passes.dump = [&, index = 0](std::string_view pass, const GraphModule& m) mutable {
        std::string file = std::to_string(++index) + "-" + std::string(pass) + ".txt";
        std::replace(file.begin(), file.end(), ' ', '-');
        Status s = write_file_atomic((std::filesystem::path(a->dump_passes) / file).string(),
                                     print_readable(m, PrintOptions::readable()).text + "\n");
        if (!s && dump_failed.ok()) dump_failed = std::move(s);
      };
    }
    auto strategy = *partition::parse_strategy(a->strategy);
    if (a->pareto && strategy == partition::Strategy::MinCut) {
      fmt::print("{:>6} {:>14} {:>16} {:>8}\n", "budget", "saved bytes", "recompute FLOPs",
                 "saved");
      partition::MinCutConfig sweep = config;
      sweep.passes.dump = nullptr;  // the partition below dumps them once
      for (int step = 0; step <= 10; ++step) {
        sweep.memory_budget = step / 10.0;
        auto p = partition::min_cut_partition(*joint, sweep);
        if (!p) {
          exit_code = report(p.errors());
          return;
        }
        fmt::print("{:>6.1f} {:>14} {:>16} {:>8}\n", sweep.memory_budget,
                   p->report.saved_bytes_total, p->report.recompute_flops,
                   p->report.saved_values.size());
      }
    }
    auto p = partition::partition_joint(*joint, strategy, config);
    if (!p) {
      Diagnostics errors = p.errors();
      for (Diagnostic& d : errors) d.file = display_name(a->file);
      exit_code = report(errors);
      return;
    }
    if (!dump_failed) {
      exit_code = report(dump_failed.errors());
      return;
    }
    partition::ForwardBackward& graphs = p->graphs;
    partition::PartitionReport& rep = p->report;
    std::optional<partition::FlowGraph>& network = p->network;
    if (!a->dump_flow.empty()) {
      if (!network) {
        exit_code =
            report({error_message("partition: --dump-flow: no flow network chose this partition (" +
                                  std::string(partition::stage_name(rep.stage)) + ")")});
        return;
      }
      Status s = write_file_atomic(
          a->dump_flow, write_flow_json(to_flow_file(*network, rep, joint->graph_name + "_flow")));
      if (!s) {
        exit_code = report(s.errors());
        return;
      }
    }
    if (!a->out_dir.empty()) {
      if (Status s = make_folder(a->out_dir); !s) {
        exit_code = report(s.errors());
        return;
      }
      PrintOptions o = PrintOptions::readable();
      std::vector<std::pair<std::string, std::string>> files = {
          {"forward.json", write_graph_json(graphs.forward)},
          {"backward.json", write_graph_json(graphs.backward)},
          {"forward.txt", print_readable(graphs.forward, o).text + "\n"},
          {"backward.txt", print_readable(graphs.backward, o).text + "\n"},
          {"report.json", rep.json()},
          {"report.txt", rep.text()}};
      for (const auto& [name, text] : files) {
        Status s = write_file_atomic((std::filesystem::path(a->out_dir) / name).string(), text);
        if (!s) {
          exit_code = report(s.errors());
          return;
        }
      }
    }
    std::string text = rep.text();
    fmt::print("{}", a->explain ? text : text.substr(0, text.find('\n') + 1));
    exit_code = kExitOk;
    if (a->verify) {
      std::vector<std::string> violations = partition::check_validity(*joint, graphs, rep);
      for (const std::string& v : violations) fmt::print("violation: {}\n", v);
      fmt::print("verify: {} violations\n", violations.size());
      if (!violations.empty()) exit_code = kExitCheckFailed;
    }
  });
}

}  // namespace remat::cli
