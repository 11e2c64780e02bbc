#include "remat/partition/optimal_partition.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "remat/ops/op_registry.h"
#include "remat/partition/budget_ladder.h"
#include "remat/partition/memory_budget.h"
#include "remat/partition/memory_timeline.h"
#include "remat/partition/op_classes.h"
#include "remat/partition/reproducing_policy.h"
#include "remat/partition/value_bytes.h"
#include "remat/passes/recompute_tag_cleanup.h"
#include "remat/support/saturating_math.h"

namespace remat::partition {
namespace {

// The program, per joint node n (docs/partitioner.md, "The optimum"):
//   computed[n]   binary: the backward computes n (recomputes it, if the forward does too)
//   available[n]  binary: n's value is there for the backward (saved, or computed there)
//   kept[r]       in [0, 1]: storage r is saved (a saved view keeps its base's storage)
// with available[n] >= computed[n]; available[u] >= computed[n] for each input u of n (what the
// backward computes, it computes from what it has); available[n] = 1 where the backward reads n;
// kept[root(n)] >= available[n] - computed[n] (n saved); sum bytes(r) kept[r] <= budget;
// kept[r] + computed[r] >= available[v] for a view v of storage r (the LP's strength, in build).
// Minimise the FLOPs of forward nodes computed again, plus a tie-breaker under one FLOP in all
// that prefers less memory among equal recompute costs.
class RecomputeProgram {
 public:
  RecomputeProgram(const GraphModule& joint, const NodeInfo& info)
      : joint_(joint),
        info_(info),
        computed_(joint.graph(), -1),
        available_(joint.graph(), -1),
        kept_(joint.graph(), -1),
        offloaded_(joint.graph(), -1) {}

  /// Offload as a third choice (before build): moving a byte out and back costs as much as
  /// recomputing this many FLOPs (2 x flops_per_second / bandwidth per byte moved both ways).
  void offer_offload(double flops_per_byte) { offload_flops_per_byte_ = flops_per_byte; }

  /// The values a solution keeps in host memory.
  [[nodiscard]] std::vector<const Node*> offloaded_by(const std::vector<double>& x) const {
    std::vector<const Node*> out;
    for (const Node* n : nodes())
      if (offloaded_[n] >= 0 && x[offloaded_[n]] > 0.5) out.push_back(n);
    return out;
  }

  void build(int64_t budget_bytes, std::optional<int64_t> flops_cap) {
    int64_t total_bytes = 0;
    NodeSet counted(joint_.graph());
    for (const Node* n : nodes()) {
      const Node& root = storage_root(*n);
      if (savable(*n) && root.op() != OpKind::Placeholder && counted.insert(&root))
        total_bytes = sat_add(total_bytes, value_bytes(root));
    }
    // The objective and its tie-breaker: recompute then memory, or (a FLOP cap) the other way.
    int64_t total_flops = 0;
    for (const Node* n : nodes()) total_flops = sat_add(total_flops, recompute_flops(*n));
    double per_byte = flops_cap ? 1 : 0.5 / (static_cast<double>(total_bytes) + 1);
    double per_flop = flops_cap ? 0.5 / (static_cast<double>(total_flops) + 1) : 1;
    std::vector<std::pair<int, double>> flops_row;
    for (const Node* n : nodes()) {
      bool backward_only = info_.tangents_closure.contains(n);
      double lo_computed = backward_only ? 1 : 0, hi_computed = never_recomputed(*n) ? 0 : 1;
      auto flops = static_cast<double>(recompute_flops(*n));
      computed_[n] = problem.add_column(n->name() + "#computed", lo_computed, hi_computed,
                                        flops * per_flop, true);
      if (flops > 0) flops_row.emplace_back(computed_[n], flops);
      bool read_by_backward = info_.required_bw.contains(n);
      available_[n] =
          problem.add_column(n->name() + "#available", read_by_backward ? 1 : 0, 1, 0, true);
      problem.add_row({{available_[n], 1}, {computed_[n], -1}}, 0, savable(*n) ? kMilpInfinity : 0);
    }
    std::vector<std::pair<int, double>> budget_row;
    for (const Node* n : nodes()) {
      for (const Node* u : n->users()) {
        if (u->op() == OpKind::Output) continue;
        problem.add_row({{available_[n], 1}, {computed_[u], -1}}, 0, kMilpInfinity);
      }
      const Node& root = storage_root(*n);
      if (!savable(*n) || root.op() == OpKind::Placeholder || n->meta.sym_value()) continue;
      int& kept = kept_[&root];
      if (kept < 0) {
        auto bytes = static_cast<double>(value_bytes(root));
        kept = problem.add_column(root.name() + "#kept", 0, 1, bytes * per_byte, false);
        budget_row.emplace_back(kept, bytes);
      }
      if (offload_flops_per_byte_ > 0 && offloadable(*n)) {
        // Saved in host memory instead: off <= saved, and the device keeps it only when not off.
        auto bytes = static_cast<double>(value_bytes(*n));
        int off = problem.add_column(n->name() + "#offloaded", 0, 1,
                                     2 * bytes * offload_flops_per_byte_ * per_flop, true);
        offloaded_[n] = off;
        problem.add_row({{off, 1}, {available_[n], -1}, {computed_[n], 1}}, -kMilpInfinity, 0);
        problem.add_row({{kept, 1}, {available_[n], -1}, {computed_[n], 1}, {off, 1}}, 0,
                        kMilpInfinity);
        continue;
      }
      problem.add_row({{kept, 1}, {available_[n], -1}, {computed_[n], 1}}, 0, kMilpInfinity);
    }
    // A view is there only with its storage: saved through it, or computed from a chain of
    // views down to the base, which is then saved (or offloaded) unless computed too. In whole
    // numbers the rows above say as much; without this row the LP relaxation keeps half the
    // storage for a view half saved and half computed from its half-saved base, and its bound
    // is so weak (at 32 GPT-2 layers, 4% of the optimum) that branch and bound cannot close
    // the gap in minutes; with it the bound is within 0.2% and the root node proves most
    // optima (docs/partitioner.md, "The optimum": solver time as the graph grows).
    for (const Node* n : nodes()) {
      const Node& root = storage_root(*n);
      if (&root == n || kept_[&root] < 0 || n->meta.sym_value()) continue;
      std::vector<std::pair<int, double>> row = {
          {kept_[&root], 1}, {computed_[&root], 1}, {available_[n], -1}};
      if (offloaded_[&root] >= 0) row.emplace_back(offloaded_[&root], 1);
      problem.add_row(std::move(row), 0, kMilpInfinity);
    }
    budget_row_ = static_cast<int>(problem.rows().size());
    problem.add_row(std::move(budget_row), -kMilpInfinity, static_cast<double>(budget_bytes));
    flops_row_ = static_cast<int>(problem.rows().size());
    problem.add_row(std::move(flops_row), -kMilpInfinity,
                    flops_cap ? static_cast<double>(*flops_cap) : kMilpInfinity);
  }

  /// The program's values for saving `saved`: the backward computes what it reads and cannot
  /// have from `saved` or the primals, and what that needs. Empty when that breaks a rule.
  [[nodiscard]] std::vector<double> assignment_saving(const std::vector<const Node*>& saved) const {
    std::vector<double> x(problem.columns().size(), 0);
    NodeSet is_saved(joint_.graph()), needed(joint_.graph());
    for (const Node* n : saved) is_saved.insert(n);
    std::vector<const Node*> order = nodes();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Node* n = *it;
      bool backward_only = info_.tangents_closure.contains(n);
      if (!backward_only && !needed.contains(n) && !info_.required_bw.contains(n)) continue;
      x[available_[n]] = 1;
      bool primal = n->op() == OpKind::Placeholder && !backward_only;
      if (!backward_only && (primal || is_saved.contains(n))) {
        if (!savable(*n)) return {};
        const Node& root = storage_root(*n);
        if (root.op() != OpKind::Placeholder && !n->meta.sym_value()) x[kept_[&root]] = 1;
        continue;
      }
      if (never_recomputed(*n)) return {};
      x[computed_[n]] = 1;
      for (const Node* u : n->input_nodes()) needed.insert(u);
    }
    for (const auto& [pinned, call] : pinned_calls_) {
      x[pinned] = std::none_of(call.begin(), call.end(), [&](const Node* n) {
        return tied_to_call_tag(*n, call) && x[computed_[n]] > 0.5;
      });
    }
    return x;
  }

  /// Whether `x` keeps within the budget, the FLOP cap and the columns' bounds.
  [[nodiscard]] bool within_limits(const std::vector<double>& x) const {
    for (size_t c = 0; c < x.size(); ++c) {
      if (x[c] < problem.columns()[c].lower || x[c] > problem.columns()[c].upper) return false;
    }
    return row_total(budget_row_, x) <= problem.rows()[budget_row_].upper &&
           row_total(flops_row_, x) <= problem.rows()[flops_row_].upper;
  }

  /// Whether the optimum ties `n` to the tag of `call` (its nodes, the op's own first): not a
  /// view (PyTorch never bans recomputing one: it saves the base or recomputes it whatever the
  /// tag), nor a view functionalization made again before the op to bring the call's input up to
  /// date (Longformer's `attn_scores += diagonal_mask`: tied, the optimum within its regions
  /// saved the attention scores; untied, tools/logged_policies.py finds the policy followed).
  static bool tied_to_call_tag(const Node& n, const std::vector<const Node*>& call) {
    return !node_is(n, OpCategory::View) && !n.is_before(call.front());
  }

  /// A policy gives all nodes of one op call one tag (OptimalOptions::within_regions): MUST_SAVE
  /// (none recomputed) or PREFER_RECOMPUTE (none saved); nodes no policy sees, or that PyTorch
  /// tags PREFER_RECOMPUTE whatever it says (RegionCalls::remade), are never saved, nor are
  /// views: PyTorch never bans recomputing a view, so it saves the base (or recomputes it)
  /// whatever the tag. One binary per call of several nodes (a decomposed op, a tuple and its
  /// getitems, an in-place op and its write-back).
  void one_tag_per_call(const RegionCalls& calls) {
    regions_only_ = true;
    // (But for what PyTorch's tag clean-up makes MUST_SAVE: a node that common-subexpression
    // elimination shares with a later region, XGLM's attention clamp constant, Llama-4's
    // unsqueezed rotary frequencies.)
    auto never_saved = [&](const Node* n) {
      if (n->meta.recompute != CheckpointPolicy::MustSave)
        problem.add_row({{available_[n], 1}, {computed_[n], -1}}, -kMilpInfinity, 0);
    };
    for (const RegionCalls::Call& call : calls.calls) {
      for (const Node* n : call.nodes)
        if (node_is(*n, OpCategory::View)) never_saved(n);
    }
    for (const RegionCalls::Call& call : calls.calls) {
      if (call.nodes.size() < 2) continue;
      int pinned = problem.add_column(call.nodes.front()->name() + "#call_pinned", 0, 1, 0, true);
      for (const Node* n : call.nodes) {
        if (!tied_to_call_tag(*n, call.nodes)) continue;
        problem.add_row({{computed_[n], 1}, {pinned, 1}}, -kMilpInfinity, 1);
        problem.add_row({{available_[n], 1}, {computed_[n], -1}, {pinned, -1}}, -kMilpInfinity, 0);
      }
      pinned_calls_.emplace_back(pinned, call.nodes);
    }
    for (const auto* list : {&calls.unseen, &calls.remade})
      for (const Node* n : *list) never_saved(n);
  }

  /// Fixes every op outside the checkpoint regions to its value in `x` (OptimalOptions::
  /// within_regions). Inputs stay free: saving one costs no activation memory.
  void fix_outside_regions(const std::vector<double>& x) {
    for (const Node* n : nodes()) {
      if (!outside_regions(*n)) continue;
      problem.fix_column(computed_[n], x[computed_[n]]);
      problem.fix_column(available_[n], x[available_[n]]);
    }
  }
  /// The activation bytes and recomputed FLOPs of `x`.
  [[nodiscard]] double bytes_of(const std::vector<double>& x) const {
    return row_total(budget_row_, x);
  }
  [[nodiscard]] double flops_of(const std::vector<double>& x) const {
    return row_total(flops_row_, x);
  }

  /// `saved` with each saved view replaced by its base where that costs nothing (no more FLOPs or
  /// memory): the optimum is indifferent between them, and PyTorch's min-cut never bans a view
  /// from recompute, so it saves the base (an input, or the op that made the storage); a policy
  /// can ask for the same.
  [[nodiscard]] std::vector<const Node*> bases_for_their_views(
      std::vector<const Node*> saved) const {
    std::vector<double> x = assignment_saving(saved);
    if (x.empty()) return saved;
    for (size_t i = 0; i < saved.size();) {
      const Node& root = storage_root(*saved[i]);
      if (saved[i] == &root || saved[i]->meta.sym_value()) {
        ++i;
        continue;
      }
      std::vector<const Node*> tried = saved;
      tried.erase(tried.begin() + static_cast<std::ptrdiff_t>(i));
      if (std::find(tried.begin(), tried.end(), &root) == tried.end()) tried.push_back(&root);
      std::vector<double> y = assignment_saving(tried);
      if (!y.empty() && flops_of(y) <= flops_of(x) && bytes_of(y) <= bytes_of(x)) {
        saved = std::move(tried);
        x = std::move(y);
      } else {
        ++i;
      }
    }
    return saved;
  }

  /// Saved tensors and symbolic sizes of a solution.
  void saved_by(const std::vector<double>& x, std::vector<const Node*>& saved,
                std::vector<const Node*>& saved_sym) const {
    for (const Node* n : nodes()) {
      if (x[available_[n]] > 0.5 && x[computed_[n]] < 0.5)
        (n->meta.sym_value() ? saved_sym : saved).push_back(n);
    }
  }

  MilpProblem problem;

 private:
  [[nodiscard]] std::vector<const Node*> nodes() const {
    std::vector<const Node*> out;
    for (const Node* n : joint_.graph().nodes()) {
      if (n->op() != OpKind::Output) out.push_back(n);
    }
    return out;
  }
  // What computing n in the backward costs: a forward node's FLOPs (it runs twice); the
  // backward's own work runs once wherever it is.
  [[nodiscard]] int64_t recompute_flops(const Node& n) const {
    return info_.is_required_fw(&n) && n.op() == OpKind::CallFunction ? node_flops(n) : 0;
  }
  // What PyTorch's activation offloading can move: a forward value that owns its storage (no
  // view, no getitem), not an input and not a forward output (both live beyond the graph).
  [[nodiscard]] bool offloadable(const Node& n) const {
    if (n.op() != OpKind::CallFunction || is_getitem(n) || !n.meta.tensor()) return false;
    if (!info_.is_required_fw(&n) || info_.tangents_closure.contains(&n)) return false;
    if (&storage_root(n) != &n) return false;
    for (const Node* u : n.users())
      if (u->op() == OpKind::Output) return false;  // a forward output (gradients are not fw)
    return true;
  }
  // A tuple is saved through its elements; MUST_RECOMPUTE forbids saving. PREFER_RECOMPUTE (what
  // plain checkpointing tags) is a preference the optimum may overrule: which values of a
  // checkpointed region to save is the question it answers.
  [[nodiscard]] bool savable(const Node& n) const {
    if (!n.meta.tensor() && !n.meta.sym_value()) return false;
    return n.meta.recompute != CheckpointPolicy::MustRecompute;
  }
  // The hard rules of the min-cut (no heuristics): a tag says the user wants it saved, or
  // nothing says running it again is safe (an op outside the registry that no tag asks to
  // recompute). Random ops may run again: the backward replays the forward's RNG state, as for
  // the min-cut.
  [[nodiscard]] bool never_recomputed(const Node& n) const {
    if (info_.tangents_closure.contains(&n)) return false;
    // Within the regions, what lies outside them is the plain min-cut's (fix_outside_regions):
    // a policy cannot change it, even where the optimum's own rules would not recompute (an op
    // outside remat's registry that PyTorch recomputes, BERT's attention-mask bitwise_and).
    if (regions_only_ && outside_regions(n)) return false;
    if (n.op() == OpKind::Placeholder) return true;
    if (n.op() != OpKind::CallFunction || is_getitem(n)) return false;
    if (!info_.is_required_fw(&n)) return false;  // the backward's own work: computed once
    // PyTorch never bans recomputing a view, MUST_SAVE or not (check_validity's exception).
    return (n.meta.recompute == CheckpointPolicy::MustSave && !node_is(n, OpCategory::View)) ||
           (node_op(n) == nullptr && !passes::must_recompute(n));
  }

  /// An op no policy tags: outside every checkpoint region, and not the backward's own.
  [[nodiscard]] bool outside_regions(const Node& n) const {
    return n.op() == OpKind::CallFunction && !n.meta.ac_graph_id() &&
           !info_.tangents_closure.contains(&n);
  }

  [[nodiscard]] double row_total(int row, const std::vector<double>& x) const {
    double total = 0;
    for (const auto& [col, coefficient] : problem.rows()[row].terms) total += coefficient * x[col];
    return total;
  }

  const GraphModule& joint_;
  const NodeInfo& info_;
  NodeMap<int> computed_, available_, kept_;
  std::vector<std::pair<int, std::vector<const Node*>>> pinned_calls_;  // one_tag_per_call
  double offload_flops_per_byte_ = 0;
  NodeMap<int> offloaded_;  // offer_offload's columns
  int budget_row_ = -1, flops_row_ = -1;
  bool regions_only_ = false;  // one_tag_per_call: the optimum within the regions
};

/// The offloaded values among the partition's saved ones: marked, with the transfer as their
/// reason; the activation memory and the peak are the device's (the offloaded values leave it
/// from their last use in the forward to their first in the backward).
void mark_offloaded(const PreparedJoint& prepared, const std::vector<const Node*>& offloaded,
                    const OptimalOptions& options, MinCutPartition& partition) {
  PartitionReport& report = partition.report;
  NodeSet off(prepared.joint.graph());
  for (const Node* n : offloaded) off.insert(n);
  int64_t host_bytes = 0;
  std::vector<const Node*> on_device;
  for (SavedValue& v : report.saved_values) {
    const Node* n = prepared.joint.graph().find(v.name);
    if (n == nullptr) continue;
    if (off.contains(n)) {
      v.offloaded = true;
      partition.graphs.offloaded.push_back(v.name);
      host_bytes += v.bytes;
      double seconds = 2 * static_cast<double>(v.bytes) / *options.offload_bandwidth;
      v.reason = fmt::format(
          "offloaded to host memory: out and back in {:.3g} us, the time the device takes for "
          "{:.3g} FLOPs, costs less than recomputing it or keeping it within the budget",
          seconds * 1e6, seconds * options.flops_per_second);
      continue;
    }
    on_device.push_back(n);
  }
  report.activation_bytes = activation_bytes(on_device);
  report.peak_memory_bytes = peak_live_bytes(partition.graphs);
  double seconds = 2 * static_cast<double>(host_bytes) / *options.offload_bandwidth;
  report.notes.push_back(fmt::format(
      "offload: {} value{} ({}) wait in host memory, out and back in {:.3g} ms at {}/s; the "
      "activation memory is the device's",
      offloaded.size(), offloaded.size() == 1 ? "" : "s", bytes_text(host_bytes), seconds * 1e3,
      bytes_text(static_cast<int64_t>(*options.offload_bandwidth))));
}

std::string human_gap(double gap) {
  return fmt::format("{:.2f}%", 100 * gap);
}

}  // namespace

Expected<OptimalPartition> optimal_partition(const GraphModule& original,
                                             const MinCutConfig& config,
                                             const OptimalOptions& options) {
  if (options.offload_bandwidth && options.within_regions)
    return error_message(
        "optimal partition: offloading and --within-regions do not go together: PyTorch 2.13's "
        "partitioner does not offload what a checkpoint policy tags CPU_OFFLOAD");
  if (options.offload_bandwidth &&
      !(*options.offload_bandwidth > 0 && options.flops_per_second > 0))
    return error_message(
        "optimal partition: offloading needs a transfer rate and the device's compute rate, both "
        "positive");
  StageTimer timer;
  auto prepared = prepare_joint(original, config, timer);
  REMAT_TRY(prepared);
  // PyTorch's fraction spans the activation memory of its budget-0 partition (the inputs and
  // what is never recomputed) to the plain min-cut's; the min-cut's own choices are the solver's
  // starts.
  auto activation_bytes_at = [&](double fraction) -> Expected<std::pair<int64_t, CutSolution>> {
    MinCutConfig c = config;
    c.memory_budget = fraction;
    auto cut = cut_within_budget(prepared->joint, prepared->info, c);
    REMAT_TRY(cut);
    auto p = partition_saving(
        *prepared, cut->cut.saved, cut->cut.saved_sym, "min-cut", [](const Node&) { return ""; },
        timer);
    REMAT_TRY(p);
    return std::pair{p->report.activation_bytes.value_or(0), std::move(cut->cut)};
  };
  auto most = activation_bytes_at(1);
  REMAT_TRY(most);
  auto least = activation_bytes_at(0);
  REMAT_TRY(least);
  auto [most_bytes, plain_cut] = std::move(*most);
  int64_t least_bytes = least->first;
  // PyTorch's budget 0 recomputes MUST_SAVE values (region boundaries among them), which the
  // optimum keeps: then the range starts at the least memory the optimum can reach (which
  // within_regions may raise).
  bool least_breaks_tags = false;
  // Outside the regions, the plain min-cut's choice (within_regions).
  RegionCalls calls;
  if (options.within_regions) calls = region_calls(prepared->joint);
  auto fix_outside = [&](RecomputeProgram& p) -> Status {
    if (!options.within_regions) return {};
    p.one_tag_per_call(calls);
    std::vector<double> plain = p.assignment_saving(plain_cut.saved);
    if (plain.empty())
      return error_message(
          "optimal partition: the plain min-cut's choice breaks the optimum's rules, so it "
          "cannot fix what lies outside the checkpoint regions");
    p.fix_outside_regions(plain);
    return {};
  };
  if (!options.budget_bytes) {
    RecomputeProgram least_memory(prepared->joint, prepared->info);
    least_memory.build(most_bytes, std::numeric_limits<int64_t>::max());
    REMAT_TRY(fix_outside(least_memory));
    if (options.within_regions || least_memory.assignment_saving(least->second.saved).empty()) {
      MilpOptions quick;
      quick.time_limit_seconds = options.time_limit_seconds;
      auto fewest = solve_milp(least_memory.problem, quick);
      REMAT_TRY(fewest);
      if (fewest->status == MilpStatus::Optimal || fewest->status == MilpStatus::TimeLimit) {
        least_bytes = std::max(
            least_bytes, static_cast<int64_t>(std::llround(least_memory.bytes_of(fewest->values))));
        least_breaks_tags = true;
      }
    }
  }
  int64_t budget = options.budget_bytes.value_or(
      least_bytes + static_cast<int64_t>(std::floor(
                        config.memory_budget * static_cast<double>(most_bytes - least_bytes))));
  timer.lap("the min-cuts to start from");

  RecomputeProgram program(prepared->joint, prepared->info);
  if (options.offload_bandwidth)
    program.offer_offload(options.flops_per_second / *options.offload_bandwidth);
  program.build(budget, options.recompute_flops_at_most);
  REMAT_TRY(fix_outside(program));
  MilpOptions milp;
  milp.time_limit_seconds = options.time_limit_seconds;
  milp.relative_gap = options.relative_gap;
  std::vector<std::vector<const Node*>> starts = {plain_cut.saved, least->second.saved};
  if (config.memory_budget < 1) {
    auto ladder = cut_within_budget(prepared->joint, prepared->info, config);
    REMAT_TRY(ladder);
    starts.insert(starts.begin(), ladder->cut.saved);
  }
  for (const auto& saved : starts) {
    std::vector<double> x = program.assignment_saving(saved);
    if (!x.empty() && program.within_limits(x)) {
      milp.start = std::move(x);
      break;
    }
  }
  timer.lap("integer program");
  if (!options.dump_mps.empty()) REMAT_TRY(write_mps(program.problem, options.dump_mps));
  auto solution = solve_milp(program.problem, milp);
  REMAT_TRY(solution);
  timer.lap("MILP solver (HiGHS)");
  if (solution->status == MilpStatus::Infeasible) {
    return error_message(fmt::format(
        "optimal partition: no partition keeps its activation memory within {}{}: what "
        "cannot be recomputed (MUST_SAVE values, ops outside remat's registry) needs more",
        bytes_text(budget),
        options.recompute_flops_at_most
            ? fmt::format(" and its recompute within {} FLOPs", *options.recompute_flops_at_most)
            : ""));
  }
  if (solution->status == MilpStatus::NoSolution) {
    return error_message(fmt::format(
        "optimal partition: the time limit ({} s) ran out before the solver found a partition "
        "within {}; raise --time-limit",
        options.time_limit_seconds, bytes_text(budget)));
  }
  std::vector<const Node*> saved, saved_sym;
  program.saved_by(solution->values, saved, saved_sym);
  std::vector<const Node*> offloaded = program.offloaded_by(solution->values);
  // (Within the regions no region view is saved, and what lies outside is fixed.)
  if (!options.within_regions) saved = program.bases_for_their_views(std::move(saved));
  auto why_saved = [](const Node& n) {
    return n.meta.recompute == CheckpointPolicy::MustSave ? "marked MUST_SAVE"
                                                          : "the optimum at this budget";
  };
  double optimum_flops = program.flops_of(solution->values);
  auto result =
      partition_saving(*prepared, std::move(saved), saved_sym, "optimal", why_saved, timer);
  REMAT_TRY(result);
  // Within the regions, PyTorch's min-cut under the policy that asks for this set may break a
  // tie its own way (save a value outside the regions rather than the one inside that feeds it):
  // where that set is as good, it is the optimum a policy reproduces.
  bool adopted = false;
  for (int round = 0; options.within_regions && round < 3; ++round) {
    std::vector<std::string> saved_names, recomputed_names;
    for (const SavedValue& v : result->report.saved_values) saved_names.push_back(v.name);
    for (const RecomputedNode& r : result->report.recomputed) recomputed_names.push_back(r.name);
    auto policy = reproducing_policy(original, saved_names, recomputed_names, config);
    REMAT_TRY(policy);
    if (policy->mismatches.empty()) break;
    std::vector<const Node*> theirs;
    for (const std::string& name : policy->predicted) {
      const Node* n = prepared->joint.graph().find(name);
      if (n == nullptr || n->meta.sym_value()) continue;
      theirs.push_back(n);
    }
    std::vector<double> y = program.assignment_saving(theirs);
    if (y.empty() || program.bytes_of(y) > static_cast<double>(budget) ||
        program.flops_of(y) > optimum_flops + 0.5)
      break;
    auto again = partition_saving(*prepared, theirs, saved_sym, "optimal", why_saved, timer);
    REMAT_TRY(again);
    result = std::move(again);
    adopted = true;
  }
  timer.lap("the policy's view of it");
  OptimalPartition out;
  out.outcome = {budget,
                 solution->status,
                 solution->seconds,
                 solution->gap(),
                 solution->nodes,
                 static_cast<int>(program.problem.columns().size()),
                 static_cast<int>(program.problem.rows().size())};
  PartitionReport& report = result->report;
  report.set_stage(PartitionStage::Optimal);
  if (!offloaded.empty()) mark_offloaded(*prepared, offloaded, options, *result);
  std::string budget_note = "budget: " + bytes_text(budget) + " of activation memory";
  if (!options.budget_bytes)
    budget_note += fmt::format(
        " (fraction {} of the way from {} {} to the min-cut's {} at budget 1)",
        config.memory_budget,
        least_breaks_tags ? "the least the optimum can reach," : "the min-cut's",
        least_breaks_tags ? bytes_text(least_bytes) : bytes_text(least_bytes) + " at budget 0",
        bytes_text(most_bytes));
  if (options.recompute_flops_at_most)
    budget_note += fmt::format("; the least memory that recomputes at most {} FLOPs",
                               *options.recompute_flops_at_most);
  report.notes.push_back(budget_note);
  if (options.within_regions)
    report.notes.push_back(
        "outside the checkpoint regions, the plain min-cut's choice: the optimum a "
        "selective-checkpointing policy can reproduce");
  if (adopted)
    report.notes.push_back(
        "PyTorch's min-cut, under the policy that asks for the solver's set, saves another as "
        "good (no more FLOPs, within the budget): this partition is that set");
  std::string ended = "proved the optimum";
  if (solution->status != MilpStatus::Optimal)
    ended = "hit the time limit; the best found is within " + human_gap(solution->gap()) +
            " of the optimum";
  else if (solution->gap() >= 5e-5)  // what human_gap shows as 0.01%
    ended = "stopped within " + human_gap(solution->gap()) + " of the optimum (the gap asked for)";
  report.notes.push_back(fmt::format("integer program: {} columns, {} rows; HiGHS {} in {:.2f} s",
                                     out.outcome.columns, out.outcome.rows, ended,
                                     solution->seconds));
  if (milp.start.empty())
    report.notes.push_back(
        "the min-cut's choice does not fit this budget: no start for the solver");
  result->stages = timer.take();
  out.partition = std::move(*result);
  return out;
}

}  // namespace remat::partition
