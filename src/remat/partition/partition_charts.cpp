#include "remat/partition/partition_charts.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "remat/partition/default_partition.h"
#include "remat/partition/memory_timeline.h"

namespace remat::partition {
namespace {

std::string_view name_of(const Node* n) {
  return n ? std::string_view(n->name()) : std::string_view();
}

/// The curve of one partition, with what is alive at each sample when `with_alive`.
TimelineCurve curve_of(const ForwardBackward& graphs, std::string label, const ChartOptions& o,
                       bool with_alive) {
  MemoryTimeline t = memory_timeline(graphs);
  std::vector<records::CurveStep> steps;
  steps.reserve(t.steps.size());
  for (const LiveStep& s : t.steps)
    steps.push_back({name_of(s.node), s.node ? value_bytes(*s.node) : 0, s.live});
  TimelineCurve c = records::memory_curve(std::move(label), steps, t.forward_steps, o.max_samples);
  if (!with_alive || o.largest_alive == 0) return c;
  std::vector<size_t> picked;
  for (const records::TimelineSample& sample : c.samples) picked.push_back(sample.step);
  std::vector<AliveSnapshot> alive = alive_at(graphs, picked, o.largest_alive);
  for (size_t k = 0; k < alive.size() && k < c.samples.size(); ++k) {
    c.samples[k].alive = alive[k].count;
    for (auto [node, bytes] : alive[k].largest)
      c.samples[k].largest.push_back({node->name(), bytes});
  }
  return c;
}

BudgetPoint point_of(double budget, const PartitionReport& r) {
  return {budget,
          r.saved_bytes_total,
          r.activation_bytes,
          r.recompute_flops.value_or(0),
          r.saved_values.size(),
          r.stage};
}

RegionMap region_map(const GraphModule& joint, const PartitionReport& r) {
  absl::flat_hash_set<std::string_view> saved, recomputed;
  for (const SavedValue& v : r.saved_values)
    if (!v.input) saved.insert(v.name);  // the inputs the backward reads anyway are no ticks
  for (const RecomputedNode& n : r.recomputed) recomputed.insert(n.name);
  records::RegionMapBuilder map;
  for (const Node* n : joint.graph().nodes())
    map.add(n->name(), n->meta.ac_graph_id(), saved.contains(n->name()),
            recomputed.contains(n->name()));
  return std::move(map).finish();
}

}  // namespace

std::optional<size_t> budget_knee(const std::vector<BudgetPoint>& points) {
  if (points.size() < 3) return std::nullopt;
  // Memory as the budget curve draws it: activation memory (saved bytes in older records).
  auto memory = [](const BudgetPoint& p) { return p.activation_bytes.value_or(p.saved_bytes); };
  auto [min_b, max_b] = std::minmax_element(
      points.begin(), points.end(),
      [&](const BudgetPoint& a, const BudgetPoint& b) { return memory(a) < memory(b); });
  auto [min_f, max_f] = std::minmax_element(points.begin(), points.end(),
                                            [](const BudgetPoint& a, const BudgetPoint& b) {
                                              return a.recompute_flops < b.recompute_flops;
                                            });
  double bytes_range = static_cast<double>(memory(*max_b) - memory(*min_b));
  double flops_range = static_cast<double>(max_f->recompute_flops - min_f->recompute_flops);
  if (bytes_range <= 0 || flops_range <= 0) return std::nullopt;
  auto x = [&](const BudgetPoint& p) {
    return static_cast<double>(memory(p) - memory(*min_b)) / bytes_range;
  };
  auto y = [&](const BudgetPoint& p) {
    return static_cast<double>(p.recompute_flops - min_f->recompute_flops) / flops_range;
  };
  // Below the chord: fewer FLOPs than the straight trade between the ends would give.
  const BudgetPoint &a = points.front(), &b = points.back();
  double dx = x(b) - x(a), dy = y(b) - y(a), length = std::hypot(dx, dy);
  if (length == 0) return std::nullopt;
  std::optional<size_t> best;
  double best_distance = 1e-9;
  for (size_t i = 1; i + 1 < points.size(); ++i) {
    double distance = (dy * (x(points[i]) - x(a)) - dx * (y(points[i]) - y(a))) / length;
    if (dx < 0) distance = -distance;  // the same side whichever way the sweep runs
    if (distance > best_distance) {
      best_distance = distance;
      best = i;
    }
  }
  return best;
}

Expected<PartitionCharts> chart_partition(const GraphModule& joint, const Partition& chosen,
                                          Strategy strategy, const MinCutConfig& config,
                                          const ChartOptions& o) {
  auto progress = [&](std::string_view what) {
    if (o.progress) o.progress(what);
  };
  PartitionCharts charts;
  std::string name = strategy == Strategy::MinCut    ? "this partition (min-cut)"
                     : strategy == Strategy::Optimal ? "this partition (optimal)"
                                                     : "this partition (default)";
  charts.memory.push_back(curve_of(chosen.graphs, name, o, /*with_alive=*/true));
  // Save everything: the default partition of the joint with its recompute tags removed.
  progress("save everything");
  GraphModule untagged = joint.clone();
  for (Node* n : untagged.graph().nodes()) n->meta.recompute.reset();
  if (auto all = default_partition(untagged))
    charts.memory.push_back(curve_of(all->graphs, "save everything (no recomputation)", o, false));
  else
    charts.notes.push_back("save everything: " + all.errors().front().message);
  if (strategy != Strategy::Default) {
    progress("default partition");
    if (auto d = default_partition(joint))
      charts.memory.push_back(curve_of(d->graphs, "default partition", o, false));
    else
      charts.notes.push_back("default partition: " + d.errors().front().message);
  }
  for (size_t step = 0; o.budget_steps > 0 && step <= o.budget_steps; ++step) {
    MinCutConfig sweep = config;
    sweep.memory_budget = static_cast<double>(step) / static_cast<double>(o.budget_steps);
    if (strategy == Strategy::MinCut &&
        std::abs(sweep.memory_budget - config.memory_budget) < 1e-9) {
      charts.budget.push_back(point_of(sweep.memory_budget, chosen.report));  // already run
      continue;
    }
    sweep.passes = {};  // no dumps or checks: the partition itself had them
    progress(fmt::format("budget {:.2f}", sweep.memory_budget));
    auto p = min_cut_partition(joint, sweep);
    REMAT_TRY(p);
    charts.budget.push_back(point_of(sweep.memory_budget, p->report));
  }
  for (size_t i = 0; o.optimum_time_limit > 0 && i < charts.budget.size(); ++i) {
    const BudgetPoint& cut = charts.budget[i];
    progress(fmt::format("the optimum at budget {:.2f}'s memory", cut.budget));
    MinCutConfig sweep = config;
    sweep.memory_budget = cut.budget;
    sweep.passes = {};
    OptimalOptions at;
    at.budget_bytes = cut.activation_bytes.value_or(cut.saved_bytes);
    at.time_limit_seconds = o.optimum_time_limit;
    at.relative_gap = o.optimum_relative_gap;
    auto best = optimal_partition(joint, sweep, at);
    if (!best) {  // PyTorch's budget 0 recomputes MUST_SAVE values: no optimum at its memory
      charts.notes.push_back(fmt::format("the optimum at budget {:.2f}'s memory: none ({})",
                                         cut.budget, best.errors().front().message));
      continue;
    }
    charts.optimum.push_back(point_of(cut.budget, best->partition.report));
  }
  if (strategy == Strategy::MinCut && !charts.budget.empty()) {
    auto at = std::find_if(charts.budget.begin(), charts.budget.end(), [&](const BudgetPoint& p) {
      return std::abs(p.budget - config.memory_budget) < 1e-9;
    });
    if (at == charts.budget.end()) {  // a budget between the sweep's: its own point
      at = std::lower_bound(charts.budget.begin(), charts.budget.end(), config.memory_budget,
                            [](const BudgetPoint& p, double budget) { return p.budget < budget; });
      at = charts.budget.insert(at, point_of(config.memory_budget, chosen.report));
    }
    charts.chosen = static_cast<size_t>(at - charts.budget.begin());
  }
  charts.knee = budget_knee(charts.budget);
  charts.regions = region_map(joint, chosen.report);
  return charts;
}

}  // namespace remat::partition
