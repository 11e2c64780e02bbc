// "What if": other partitions of a compile's logged joint graph beside the one the run used.
// PyTorch's knapsack and remat's optimum at a few budgets and at the activation memory the run
// had, each with what it costs, what changes fate against the run, and the command that writes
// the policy making PyTorch save it. The report never partitions (it reads text): whoever makes
// the report gives it the function that does (ReportOptions::what_if; the CLI's is
// driver/what_if.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/records/partition_record.h"

namespace remat::report {

struct WhatIfRow {
  std::string strategy;  ///< "PyTorch's knapsack", "remat's optimum"
  std::string budget;    ///< as shown: "0.5", "12.0 KB (the run's)"
  /// For the command that writes the policy: `--strategy` and `--budget` of `remat policy`
  /// (empty: no policy reaches this joint graph, it has no checkpoint region).
  std::string policy_strategy, policy_budget;
  std::optional<records::PartitionRecord> partition;  ///< nullopt: none (the note says why)
  std::string note;  ///< the solver stopped at its time limit, or why there is no partition
};

struct WhatIfTable {
  std::vector<WhatIfRow> rows;
  /// The joint graph has checkpoint regions: the optimum decides inside them only, as a policy
  /// can (outside them PyTorch's min-cut decides under any policy).
  bool within_regions = false;
  std::string note;  ///< why there are no rows (the joint graph could not be read), or empty
};

/// A compile's logged graphs: its joint graph and Dynamo's graph (which inputs are parameters).
struct WhatIfRequest {
  std::string_view joint, dynamo;
  int64_t run_activation_bytes = 0;  ///< the run's activation memory: a row at that budget
};

using WhatIf = std::function<WhatIfTable(const WhatIfRequest&)>;

/// The table for a partition page: each row against the run's partition `run`, with the
/// `remat policy` command for `log`'s compile `compile_key` ("[3/0]").
std::string what_if_html(const WhatIfTable& table, const records::PartitionRecord& run,
                         std::string_view log, std::string_view compile_key);

}  // namespace remat::report
