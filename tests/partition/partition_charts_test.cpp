// The numbers behind the report's pictures: the memory timeline (its peak is the report's
// estimate), what is alive at a step, the budget sweep and its knee, the region map.
#include <gtest/gtest.h>

#include <algorithm>

#include <numeric>

#include "remat/autodiff/joint_graph.h"
#include "remat/models/model_zoo.h"
#include "remat/partition/memory_timeline.h"
#include "remat/partition/partition_charts.h"
#include "remat/trace/checkpoint.h"
#include "testing/traced_joint.h"

namespace remat::partition {
namespace {

using namespace remat::trace;
using records::TimelineSample;

GraphModule sin_cos_sum_joint() {
  return testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true);  // 64 bytes
    return std::vector<Tensor>{cos(sin(x)).sum()};
  });
}

TEST(MemoryTimeline, HandCountedForward) {
  GraphModule joint = sin_cos_sum_joint();
  auto p = partition_joint(joint, Strategy::Default);
  ASSERT_TRUE(p.ok()) << format_all(p.errors());
  MemoryTimeline t = memory_timeline(p->graphs);
  // The forward: x (64), sin (+64), cos (+64), sum (+4, then cos dies); sin and x stay, saved.
  ASSERT_GE(t.forward_steps, 4u);
  std::vector<int64_t> forward;
  for (size_t i = 0; i < t.forward_steps; ++i) forward.push_back(t.steps[i].live);
  EXPECT_EQ(forward, (std::vector<int64_t>{64, 128, 192, 196}));
  EXPECT_EQ(t.steps[0].node, nullptr);
  EXPECT_EQ(t.steps[1].node->name(), "sin");
  // The backward starts with its inputs (the saved values and the tangent) alive.
  int64_t inputs = 0;
  for (const Node* n : p->graphs.backward.graph().placeholders()) inputs += value_bytes(*n);
  EXPECT_EQ(t.steps[t.forward_steps].live, inputs);
  EXPECT_EQ(t.steps[t.forward_steps].node, nullptr);
  EXPECT_EQ(t.peak_bytes(), p->report.peak_memory_bytes);
  for (const LiveStep& s : t.steps) EXPECT_LE(s.live, t.peak_bytes());
}

// An offloaded saved value leaves the device after its last forward use and comes back at its
// first backward use (ForwardBackward::offloaded, the optimum's third choice).
TEST(MemoryTimeline, OffloadedValuesLeaveTheDeviceBetweenTheirUses) {
  GraphModule joint = sin_cos_sum_joint();
  auto p = partition_joint(joint, Strategy::Default);
  ASSERT_TRUE(p.ok()) << format_all(p.errors());
  ASSERT_NE(std::find(p->graphs.saved_values.begin(), p->graphs.saved_values.end(), "sin"),
            p->graphs.saved_values.end());
  MemoryTimeline kept = memory_timeline(p->graphs);
  p->graphs.offloaded = {"sin"};
  MemoryTimeline off = memory_timeline(p->graphs);
  ASSERT_EQ(off.steps.size(), kept.steps.size());
  ASSERT_EQ(off.forward_steps, kept.forward_steps);
  // The forward: x, sin, cos (sin's last use: it leaves), then sum without sin's 64 bytes.
  std::vector<int64_t> forward;
  for (size_t i = 0; i < off.forward_steps; ++i) forward.push_back(off.steps[i].live);
  EXPECT_EQ(forward, (std::vector<int64_t>{64, 128, 192, 132}));
  // The backward starts without it, and has it back once a node reads it.
  EXPECT_EQ(off.steps[off.forward_steps].live, kept.steps[kept.forward_steps].live - 64);
  bool back = false;
  for (size_t i = off.forward_steps + 1; i < off.steps.size(); ++i) {
    EXPECT_LE(off.steps[i].live, kept.steps[i].live) << i;
    back = back || off.steps[i].live == kept.steps[i].live;
  }
  EXPECT_TRUE(back);
  EXPECT_LE(off.peak_bytes(), kept.peak_bytes());
}

TEST(MemoryTimeline, CountsStorageAndHoldsTheStepsInputs) {
  // y = (x @ w.t()).sum(), w a parameter: w.t() is a view (no bytes of its own), and the backward
  // (dw = dy^T x) does not read w, which its owner still holds: it weighs from outside.
  GraphModule joint = testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, false);  // 64 bytes
    Tensor w = t.input("w", {4, 4}, DType::Float32, true);   // 64 bytes
    return std::vector<Tensor>{mm(x, w.t()).sum()};
  });
  auto p = partition_joint(joint, Strategy::Default);
  ASSERT_TRUE(p.ok()) << format_all(p.errors());
  MemoryTimeline t = memory_timeline(p->graphs);
  EXPECT_EQ(t.steps[0].live, 128);  // the inputs
  ASSERT_NE(t.steps[1].node, nullptr);
  EXPECT_EQ(t.steps[1].node->target().view(), "aten.t.default");
  EXPECT_EQ(t.steps[1].live, 128);  // a view adds nothing
  // The backward starts with its own inputs and the inputs of the step it does not read.
  int64_t own = 0, unread = 0;
  for (const Node* n : p->graphs.backward.graph().placeholders()) own += value_bytes(*n);
  for (const Node* n : p->graphs.forward.graph().placeholders())
    if (p->graphs.backward.graph().find(n->name()) == nullptr) unread += value_bytes(*n);
  EXPECT_GT(unread, 0);
  EXPECT_EQ(t.steps[t.forward_steps].live, own + unread);
  // Inputs are never freed: no step holds less than they weigh.
  for (const LiveStep& s : t.steps) EXPECT_GE(s.live, 128);
}

TEST(MemoryTimeline, AliveValuesAddUpToTheLiveBytes) {
  GraphModule joint = sin_cos_sum_joint();
  auto p = partition_joint(joint, Strategy::MinCut);
  ASSERT_TRUE(p.ok());
  MemoryTimeline t = memory_timeline(p->graphs);
  std::vector<size_t> every(t.steps.size());
  std::iota(every.begin(), every.end(), 0);
  std::vector<AliveSnapshot> alive = alive_at(p->graphs, every, 1000);
  ASSERT_EQ(alive.size(), t.steps.size());
  for (size_t i = 0; i < alive.size(); ++i) {
    int64_t sum = 0;
    for (size_t k = 0; k < alive[i].largest.size(); ++k) {
      sum += alive[i].largest[k].second;
      if (k > 0) {
        EXPECT_LE(alive[i].largest[k].second, alive[i].largest[k - 1].second);
      }
    }
    EXPECT_EQ(sum, t.steps[i].live) << "step " << i;
    EXPECT_EQ(alive[i].count, alive[i].largest.size());
  }
  // Only the largest: one each.
  std::vector<AliveSnapshot> top = alive_at(p->graphs, {t.peak}, 1);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].largest.size(), 1u);
  EXPECT_EQ(top[0].count, alive[t.peak].count);
}

TEST(BudgetKnee, FarthestBelowTheChord) {
  auto points = [](std::vector<std::pair<int64_t, int64_t>> xy) {
    std::vector<BudgetPoint> out;
    for (auto [bytes, flops] : xy) out.push_back({0, bytes * 2, bytes, flops, 0, ""});
    return out;
  };
  // Saving a little buys most of the FLOPs back: the knee is the elbow.
  EXPECT_EQ(budget_knee(points({{0, 100}, {10, 20}, {20, 10}, {100, 0}})), 1u);
  EXPECT_EQ(budget_knee(points({{0, 100}, {50, 90}, {60, 10}, {100, 0}})), 2u);
  // A straight trade, or points above the chord, have none; nor do two points.
  EXPECT_FALSE(budget_knee(points({{0, 100}, {50, 50}, {100, 0}})));
  EXPECT_FALSE(budget_knee(points({{0, 100}, {10, 99}, {100, 0}})));
  EXPECT_FALSE(budget_knee(points({{0, 100}, {100, 0}})));
  EXPECT_FALSE(budget_knee(points({{5, 5}, {5, 5}, {5, 5}})));
}

TEST(PartitionCharts, Gpt2WithCheckpointedLayers) {
  models::ModelOptions mo;
  mo.layers = 2;
  mo.checkpoint.mode = models::CheckpointPlan::Mode::EachLayer;
  auto forward = models::find_model("gpt2")->trace(mo);
  ASSERT_TRUE(forward.ok());
  auto joint = autodiff::build_joint_graph(*forward);
  ASSERT_TRUE(joint.ok());
  MinCutConfig config;
  config.memory_budget = 0.55;  // between the sweep's points: gets a point of its own
  auto p = partition_joint(*joint, Strategy::MinCut, config);
  ASSERT_TRUE(p.ok());
  ChartOptions o;
  o.max_samples = 50;
  std::vector<std::string> progress;
  o.progress = [&](std::string_view what) { progress.emplace_back(what); };
  auto charts = chart_partition(*joint, *p, Strategy::MinCut, config, o);
  ASSERT_TRUE(charts.ok()) << format_all(charts.errors());
  ASSERT_EQ(charts->memory.size(), 3u);
  EXPECT_EQ(charts->memory[0].label, "this partition (min-cut)");
  EXPECT_EQ(charts->memory[1].label, "save everything (no recomputation)");
  EXPECT_EQ(charts->memory[2].label, "default partition");
  EXPECT_EQ(charts->memory[0].peak_bytes, p->report.peak_memory_bytes);
  for (const TimelineCurve& c : charts->memory) {
    EXPECT_LE(c.samples.size(), 50u) << c.label;
    EXPECT_GT(c.steps, 50u) << c.label;  // so the curve was sampled
    bool has_peak = false;
    for (const TimelineSample& s : c.samples) {
      EXPECT_LE(s.live, c.peak_bytes);
      has_peak = has_peak || (s.step == c.peak_step && s.live == c.peak_bytes);
    }
    EXPECT_TRUE(has_peak) << c.label;
  }
  EXPECT_FALSE(charts->memory[0].samples[1].largest.empty());  // the partition's own: what lives
  EXPECT_TRUE(charts->memory[1].samples[1].largest.empty());
  // Nothing recomputed saves at least as much as the min-cut keeps alive at its peak.
  EXPECT_GE(charts->memory[1].peak_bytes, charts->memory[0].peak_bytes);
  ASSERT_EQ(charts->budget.size(), 12u);  // 0, 0.1, ..., 1 and 0.55
  ASSERT_TRUE(charts->chosen);
  EXPECT_DOUBLE_EQ(charts->budget[*charts->chosen].budget, 0.55);
  EXPECT_EQ(charts->budget[*charts->chosen].saved_bytes, p->report.saved_bytes_total);
  for (size_t i = 1; i < charts->budget.size(); ++i)
    EXPECT_LT(charts->budget[i - 1].budget, charts->budget[i].budget);
  EXPECT_EQ(progress.front(), "save everything");
  EXPECT_EQ(progress.size(), 2u + 11u);
  const RegionMap& m = charts->regions;
  EXPECT_EQ(m.nodes, joint->graph().size());
  ASSERT_EQ(m.regions.size(), 2u);
  EXPECT_EQ(m.regions[0].id, 1);
  EXPECT_EQ(m.regions[1].id, 2);
  EXPECT_LT(m.regions[0].span.last, m.regions[1].span.first);
  // The saved activations, not the inputs the backward reads anyway.
  size_t activations = 0;
  for (const SavedValue& v : p->report.saved_values) activations += v.input ? 0 : 1;
  EXPECT_EQ(m.saved.size(), activations);
  EXPECT_LT(activations, p->report.saved_values.size());
  for (size_t i = 1; i < m.saved.size(); ++i) EXPECT_LT(m.saved[i - 1].first, m.saved[i].first);
  ASSERT_FALSE(m.recomputed.empty());
  size_t recomputed = 0;
  for (size_t i = 0; i < m.recomputed.size(); ++i) {
    recomputed += m.recomputed[i].last - m.recomputed[i].first + 1;
    if (i > 0) {
      EXPECT_GT(m.recomputed[i].first, m.recomputed[i - 1].last + 1);
    }
  }
  EXPECT_EQ(recomputed, p->report.recomputed.size());
  // The record carries them.
  PartitionReport r = p->report;
  r.charts = *charts;
  std::string json = r.json();
  for (const char* key : {"\"charts\"", "\"memory\"", "\"budget\"", "\"chosen\": 6", "\"regions\"",
                          "\"largest\"", "\"shape\": \"f32["})
    EXPECT_NE(json.find(key), std::string::npos) << key;
}

}  // namespace
}  // namespace remat::partition
