#include "remat/driver/what_if.h"

#include <fmt/format.h>

#include <algorithm>

#include "remat/fxtext/static_inputs.h"
#include "remat/partition/memory_budget.h"
#include "remat/partition/partition_joint.h"
#include "remat/print/readable_parser.h"
#include "remat/report/html.h"

namespace remat::driver {

report::WhatIfTable what_if(const report::WhatIfRequest& request, double seconds_per_solve) {
  report::WhatIfTable table;
  Expected<GraphModule> joint = parse_readable(request.joint, "the logged joint graph");
  if (!joint) {
    table.note = "No rows: remat cannot read this joint graph (" +
                 joint.errors().front().message.substr(0, 200) + ").";
    return table;
  }
  joint->static_lifetime_input_indices =
      fxtext::static_input_indices(request.dynamo, request.joint);
  // With checkpoint regions, the optimum a policy reproduces (what `remat policy` writes).
  table.within_regions = std::ranges::any_of(
      joint->graph().nodes(), [](const Node* n) { return n->meta.ac_graph_id().has_value(); });
  std::vector<std::pair<std::string, std::string>> budgets = {
      {"1", "1"}, {"0.8", "0.8"}, {"0.5", "0.5"}, {"0.3", "0.3"}};
  if (request.run_activation_bytes > 0) {
    budgets.emplace_back(
        report::human_bytes(static_cast<uint64_t>(request.run_activation_bytes)) + " (the run's)",
        std::to_string(request.run_activation_bytes) + "B");
  }
  for (const auto& [shown, budget_text] : budgets) {
    Expected<partition::MemoryBudget> budget = partition::parse_memory_budget(budget_text);
    if (!budget) continue;  // (the texts above all parse)
    for (auto strategy : {partition::Strategy::MinCut, partition::Strategy::Optimal}) {
      bool optimal = strategy == partition::Strategy::Optimal;
      report::WhatIfRow row;
      row.strategy = optimal ? "remat's optimum" : "PyTorch's knapsack";
      row.budget = shown;
      if (table.within_regions) {
        row.policy_strategy = optimal ? "optimal" : "min-cut";
        row.policy_budget = budget_text;
      }
      partition::MinCutConfig config;
      partition::OptimalOptions options;
      options.time_limit_seconds = seconds_per_solve;
      options.within_regions = table.within_regions;
      Expected<partition::Partition> p =
          partition::partition_for_budget(*joint, strategy, config, *budget, options);
      if (!p) {
        row.note = p.errors().front().message.substr(0, 300);
      } else {
        records::PartitionRecord record = p->report;
        record.charts.reset();
        for (const std::string& n : record.notes)
          if (n.find("hit the time limit") != std::string::npos) row.note = n;
        row.partition = std::move(record);
      }
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

}  // namespace remat::driver
