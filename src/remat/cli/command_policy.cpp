// remat policy JOINT [RECORD] -o policy.py: the selective-checkpointing policy that makes
// PyTorch's own partitioner save a partition's choice, and what PyTorch's min-cut will save with
// it.
#include <fmt/format.h>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/partition/memory_budget.h"
#include "remat/partition/policy_module.h"
#include "remat/partition/reproducing_policy.h"
#include "remat/support/file_io.h"

namespace remat::cli {
namespace {

void print_regions(const partition::ReproducingPolicy& policy) {
  for (size_t r = 0; r < policy.regions.size(); ++r) {
    const partition::PolicyRegion& region = policy.regions[r];
    fmt::print("region {} (ac_graph_id {}): {} calls\n", r + 1, region.ac_graph_id,
               region.calls.size());
    for (const partition::PolicyCall& c : region.calls) {
      if (!c.save) continue;
      std::string values;
      for (const std::string& v : c.saved) values += (values.empty() ? "" : ", ") + v;
      fmt::print("  MUST_SAVE {} #{}: {}\n", c.op, c.index,
                 values.empty() ? "(none of its values saved: pinned, not recomputed)" : values);
    }
  }
}

struct PolicyArgs {
  std::string joint, compile, record, out, strategy = "min-cut", budget = "1";
  double time_limit = 60;
  bool explain = false;
};

Expected<int> run_policy(const PolicyArgs& a) {
  Expected<GraphModule> joint = load_graph(a.joint, BadTargets::Refuse, a.compile);
  REMAT_TRY(joint);
  std::vector<std::string> saved, recomputed;
  std::string source;
  if (!a.record.empty()) {
    Expected<records::PartitionRecord> r = read_partition_record_file(a.record);
    REMAT_TRY(r);
    for (const records::SavedValue& v : r->saved_values) saved.push_back(v.name);
    for (const records::RecomputedNode& n : r->recomputed) recomputed.push_back(n.name);
    source =
        fmt::format("the partition in {} ({}, {})", display_name(a.record), r->strategy, r->stage);
  } else {
    Expected<partition::MemoryBudget> budget = partition::parse_memory_budget(a.budget);
    REMAT_TRY(budget);
    partition::MinCutConfig config;
    partition::OptimalOptions optimal;
    optimal.time_limit_seconds = a.time_limit;
    optimal.within_regions = true;  // outside the regions, PyTorch decides
    Expected<partition::Partition> p = partition::partition_for_budget(
        *joint, *partition::parse_strategy(a.strategy), config, *budget, optimal);
    if (!p) {
      Diagnostics errors = p.errors();
      for (Diagnostic& d : errors) d.file = display_name(a.joint);
      return errors;
    }
    for (const records::SavedValue& v : p->report.saved_values) saved.push_back(v.name);
    for (const records::RecomputedNode& n : p->report.recomputed) recomputed.push_back(n.name);
    source =
        fmt::format("remat's {} at budget {} ({})", a.strategy, a.budget, display_name(a.joint));
  }
  Expected<partition::ReproducingPolicy> policy =
      partition::reproducing_policy(*joint, saved, recomputed);
  if (!policy) {
    Diagnostics errors = policy.errors();
    for (Diagnostic& d : errors) d.file = display_name(a.joint);
    return errors;
  }
  REMAT_TRY(write_file_atomic(a.out, partition::policy_module_text(*policy, source)));
  fmt::print("policy: {} checkpoint region{}, {} op calls: {} MUST_SAVE, {} PREFER_RECOMPUTE\n",
             policy->regions.size(), policy->regions.size() == 1 ? "" : "s", policy->call_count(),
             policy->saved_call_count(), policy->call_count() - policy->saved_call_count());
  if (a.explain) print_regions(*policy);
  std::fprintf(stderr, "policy: %s\n", a.out.c_str());
  if (policy->mismatches.empty()) {
    fmt::print("PyTorch's min-cut with this policy saves exactly the {} chosen values{}\n",
               policy->chosen.size(), partition::rng_state_note(*policy));
    return kExitOk;
  }
  fmt::print("PyTorch's min-cut with this policy decides {} value{} otherwise:\n",
             policy->mismatches.size(), policy->mismatches.size() == 1 ? "" : "s");
  for (const partition::PolicyMismatch& m : policy->mismatches)
    fmt::print("  {:<24} {:<24} {}\n", m.name,
               m.predicted_saved ? "saved, not chosen" : "chosen, not saved", m.why);
  return kExitCheckFailed;
}

}  // namespace

void add_policy_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "policy",
      "Write a selective activation checkpointing policy (a Python module with context_fn for "
      "torch.utils.checkpoint) that makes PyTorch's own partitioner save what a partition of "
      "JOINT saves: the partition record RECORD (remat partition -o's report.json), or the one "
      "--strategy and --budget choose. Prints what PyTorch's min-cut will save with the policy; "
      "exit 1 when that differs from the choice (each value named, with why).");
  auto a = std::make_shared<PolicyArgs>();
  cmd->add_option("joint", a->joint,
                  "the joint graph (fxgraph-json, readable text, or a TORCH_TRACE log)")
      ->required();
  add_compile_option(*cmd, a->compile);
  auto* record = cmd->add_option(
      "record", a->record, "the partition to reproduce: a partition record of this joint graph");
  cmd->add_option("-o,--output", a->out, "the policy module to write (policy.py)")->required();
  cmd->add_option("--strategy", a->strategy,
                  "without RECORD: min-cut (default) or optimal (within the checkpoint regions) "
                  "chooses what to save")
      ->check(CLI::IsMember({"min-cut", "optimal"}))
      ->excludes(record);
  cmd->add_option("--budget", a->budget,
                  "without RECORD: the activation memory budget (a fraction, or bytes such as "
                  "24MB), as remat partition takes it")
      ->excludes(record);
  cmd->add_option("--time-limit", a->time_limit, "optimal: seconds the MILP solver may take")
      ->check(CLI::PositiveNumber)
      ->excludes(record);
  cmd->add_flag("--explain", a->explain, "print every saved call of every region");
  run_verb(*cmd, a, exit_code, &run_policy);
}

}  // namespace remat::cli
