#include "remat/partition/partition_charts.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "remat/partition/default_partition.h"
#include "remat/partition/memory_timeline.h"

namespace remat::partition {
namespace {

std::string name_of(const Node* n) {
  return n ? n->name() : std::string();
}

/// The curve of one partition: every step, or each bucket's busiest when there are more than
/// `o.max_samples`; with what is alive at each sample when `o.largest_alive` > 0.
TimelineCurve curve_of(const ForwardBackward& graphs, std::string label, const ChartOptions& o,
                       bool with_alive) {
  MemoryTimeline t = memory_timeline(graphs);
  TimelineCurve c;
  c.label = std::move(label);
  c.steps = t.steps.size();
  c.forward_steps = t.forward_steps;
  c.peak_bytes = t.peak_bytes();
  c.peak_step = t.peak;
  if (!t.steps.empty()) c.peak_node = name_of(t.steps[t.peak].node);
  std::vector<size_t> picked;
  size_t bucket = std::max<size_t>(1, (t.steps.size() + o.max_samples - 1) / o.max_samples);
  for (size_t start = 0; start < t.steps.size(); start += bucket) {
    size_t best = start;
    for (size_t i = start; i < std::min(t.steps.size(), start + bucket); ++i)
      if (t.steps[i].live > t.steps[best].live) best = i;  // the first of equals: the peak's own
    picked.push_back(best);
  }
  std::vector<AliveSnapshot> alive;
  if (with_alive && o.largest_alive > 0) alive = alive_at(graphs, picked, o.largest_alive);
  for (size_t k = 0; k < picked.size(); ++k) {
    const LiveStep& s = t.steps[picked[k]];
    TimelineSample sample{picked[k], s.live, name_of(s.node), s.node ? value_bytes(*s.node) : 0,
                          0,         {}};
    if (k < alive.size()) {
      sample.alive = alive[k].count;
      for (auto [node, bytes] : alive[k].largest) sample.largest.push_back({node->name(), bytes});
    }
    c.samples.push_back(std::move(sample));
  }
  return c;
}

BudgetPoint point_of(double budget, const PartitionReport& r) {
  return {budget, r.saved_bytes_total, r.recompute_flops, r.saved_values.size(),
          std::string(stage_name(r.stage))};
}

/// Runs of consecutive joint nodes, in order.
std::vector<NodeSpan> runs(std::vector<std::pair<size_t, const Node*>> nodes) {
  std::sort(nodes.begin(), nodes.end());
  std::vector<NodeSpan> out;
  for (auto [i, n] : nodes) {
    if (!out.empty() && out.back().last + 1 >= i) {
      out.back().last = i;
      out.back().last_name = n->name();
    } else {
      out.push_back({i, i, n->name(), n->name()});
    }
  }
  return out;
}

RegionMap region_map(const GraphModule& joint, const PartitionReport& r) {
  RegionMap m;
  absl::flat_hash_map<const Node*, size_t> index;
  for (const Node* n : joint.graph().nodes()) {
    index[n] = m.nodes;
    std::optional<int64_t> id = n->meta.ac_graph_id();
    if (id && !m.regions.empty() && m.regions.back().id == *id &&
        m.regions.back().span.last + 1 == m.nodes) {
      m.regions.back().span.last = m.nodes;
      m.regions.back().span.last_name = n->name();
    } else if (id) {
      m.regions.push_back({*id, {m.nodes, m.nodes, n->name(), n->name()}});
    }
    ++m.nodes;
  }
  for (const SavedValue& v : r.saved_values)
    if (const Node* n = joint.graph().find(v.name)) m.saved.push_back({index.at(n), v.name});
  std::sort(m.saved.begin(), m.saved.end());
  std::vector<std::pair<size_t, const Node*>> recomputed;
  for (const RecomputedNode& r_node : r.recomputed)
    if (const Node* n = joint.graph().find(r_node.name)) recomputed.push_back({index.at(n), n});
  m.recomputed = runs(std::move(recomputed));
  return m;
}

}  // namespace

std::optional<size_t> budget_knee(const std::vector<BudgetPoint>& points) {
  if (points.size() < 3) return std::nullopt;
  auto [min_b, max_b] = std::minmax_element(
      points.begin(), points.end(),
      [](const BudgetPoint& a, const BudgetPoint& b) { return a.saved_bytes < b.saved_bytes; });
  auto [min_f, max_f] = std::minmax_element(points.begin(), points.end(),
                                            [](const BudgetPoint& a, const BudgetPoint& b) {
                                              return a.recompute_flops < b.recompute_flops;
                                            });
  double bytes_range = static_cast<double>(max_b->saved_bytes - min_b->saved_bytes);
  double flops_range = static_cast<double>(max_f->recompute_flops - min_f->recompute_flops);
  if (bytes_range <= 0 || flops_range <= 0) return std::nullopt;
  auto x = [&](const BudgetPoint& p) {
    return static_cast<double>(p.saved_bytes - min_b->saved_bytes) / bytes_range;
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
  charts.memory.push_back(curve_of(
      chosen.graphs,
      strategy == Strategy::MinCut ? "this partition (min-cut)" : "this partition (default)", o,
      /*with_alive=*/true));
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
