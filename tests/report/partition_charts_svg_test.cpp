// The partition page's pictures from a record's charts: what they show, where they link, and that
// a record with odd chart data (points out of range, negative sizes) still gives a page.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "remat/records/partition_record.h"
#include "remat/report/partition_charts_svg.h"
#include "remat/report/partition_html.h"

namespace remat::report {
namespace {

using Json = nlohmann::ordered_json;

Json record_json() {
  return Json::parse(R"json({
    "schema": "remat-partition-report/1", "strategy": "min-cut", "saved_bytes_total": 64, "recompute_flops": 10, "peak_memory_bytes": 192,
    "saved_values": [{"name": "small", "bytes": 4, "reason": "r", "shape": "f32[1]"},
                     {"name": "big", "bytes": 64, "reason": "r", "shape": "f32[4, 4]", "region": 2}],
    "recomputed": [{"name": "mm", "target": "aten.mm.default", "flops": 10, "reason": "tagged"}],
    "charts": {
      "memory": [
        {"label": "this partition (min-cut)", "steps": 5, "forward_steps": 3, "peak_bytes": 192,
         "peak_step": 2, "peak_node": "mm", "samples": [
           {"step": 0, "live": 64, "node": "", "bytes": 0, "alive": 1, "largest": [["x", 64]]},
           {"step": 2, "live": 192, "node": "mm", "bytes": 64, "alive": 3,
            "largest": [["mm", 64], ["x", 64]]},
           {"step": 4, "live": 128, "node": "mul", "bytes": 64}]},
        {"label": "save everything (no recomputation)", "steps": 4, "forward_steps": 2,
         "peak_bytes": 256, "peak_step": 1, "peak_node": "sin",
         "samples": [{"step": 0, "live": 64, "node": "", "bytes": 0},
                     {"step": 1, "live": 256, "node": "sin", "bytes": 64}]}],
      "budget": [{"budget": 0.0, "saved_bytes": 0, "recompute_flops": 100, "saved_values": 0,
                  "stage": "inputs"},
                 {"budget": 0.5, "saved_bytes": 10, "recompute_flops": 10, "saved_values": 1,
                  "stage": "min-cut"},
                 {"budget": 1.0, "saved_bytes": 64, "recompute_flops": 0, "saved_values": 2,
                  "stage": "min-cut"}],
      "chosen": 1, "knee": 1,
      "regions": {"nodes": 6, "regions": [[2, 1, 3, "sin", "mm"]], "saved": [[1, "big"]],
                  "recomputed": [[3, 3, "mm", "mm"]]}
    }})json");
}

/// What the report reads: the record through its one reader.
records::PartitionRecord read(const Json& j) {
  Expected<records::PartitionRecord> r = records::read_partition_record(j.dump(), "record.json");
  EXPECT_TRUE(r) << (r ? "" : r.errors().front().format());
  return r ? *r : records::PartitionRecord();
}

records::PartitionRecord record() {
  return read(record_json());
}

TEST(PartitionChartsSvg, FiguresShowTheRecordsNumbersAndLinkToTheJoint) {
  NodeLinks links{"joint.html", {{"mm", 7}, {"big", 4}, {"sin", 5}}};
  records::PartitionRecord r = record();
  std::string page = partition_page(r, "[0/0]", &links, "");
  for (const char* expected :
       {"id=\"memory-timeline\" class=\"chart\" data-peak-bytes=\"192\" data-peak-step=\"2\" "
        "data-peak-node=\"mm\"",
        "<a href=\"joint.html#L7\"><circle class=\"peak\"", "class=\"curve c1\"",
        "save everything (no recomputation): peak 256 B",
        "step 2: mm (64 B), 192 B live in 3 values; the largest: mm 64 B, x 64 B",
        "id=\"budget-curve\" class=\"chart\" data-points=\"3\" data-axis=\"saved\" "
        "data-chosen=\"1\" "
        "data-knee=\"1\"",
        "this partition (budget 0.50)", "knee (budget 0.50)",
        "id=\"region-map\" class=\"chart\" data-nodes=\"6\" data-regions=\"1\" data-saved=\"1\"",
        "data-ac-graph-id=\"2\"", "region 2: nodes 1–3 (sin to mm)",
        "<a href=\"joint.html#L4\"><line class=\"tick\"", "recomputed: node 3 (mm)",
        "<a href=\"joint.html#L4\"><code>big</code></a>"}) {
    EXPECT_NE(page.find(expected), std::string::npos) << expected;
  }
  // Saved values: the largest first, with shape and region.
  EXPECT_LT(page.find("<code>big</code>"), page.find("<code>small</code>"));
  EXPECT_NE(page.find("<code>f32[4, 4]</code>"), std::string::npos);
  // Without links, names stay text.
  EXPECT_EQ(partition_page(r, "[0/0]", nullptr, "").find("href=\"joint.html"), std::string::npos);
}

TEST(PartitionChartsSvg, ManyRegionsShareLanesAndNearbyRunsMerge) {
  // 300 checkpointed layers of 100 nodes each, one after another, every other node recomputed:
  // one lane for the regions, and the runs, closer than a pixel, drawn as few marks.
  records::RegionMap charts;
  charts.nodes = 30000;
  for (size_t i = 0; i < 300; ++i)
    charts.regions.push_back({static_cast<int64_t>(i), {i * 100, i * 100 + 99, "a", "b"}});
  for (size_t i = 0; i < 30000; i += 2) charts.recomputed.push_back({i, i, "r", "r"});
  std::string figure = region_map_figure(charts, nullptr);
  EXPECT_NE(figure.find("data-regions=\"300\""), std::string::npos);
  EXPECT_NE(figure.find("a color per checkpoint region"), std::string::npos);
  EXPECT_NE(figure.find(">regions</text>"), std::string::npos);
  EXPECT_EQ(figure.find(">region 7</text>"), std::string::npos);
  size_t runs = 0;
  for (size_t at = figure.find("class=\"run\""); at != std::string::npos;
       at = figure.find("class=\"run\"", at + 1))
    ++runs;
  EXPECT_GT(runs, 0u);
  EXPECT_LT(runs, 1000u);  // at most one per pixel, not 15,000
  EXPECT_NE(figure.find("runs</title>"), std::string::npos);
  // The SVG stays three rows high.
  EXPECT_NE(figure.find("viewBox=\"0 0 960 118\""), std::string::npos) << figure.substr(0, 600);
}

TEST(PartitionHtml, TheIndexSentenceSaysWhatIsKeptAndWhatIsRecomputed) {
  // A record without input marks (older remat) speaks of saved values.
  EXPECT_EQ(partition_sentence(record()),
            "Saves 2 values (64 B) for the backward and recomputes <b>1 node (10 FLOPs)</b>. "
            "Estimated peak: 192 B.");
  Json j = record_json();
  j["saved_values"][0]["input"] = true;
  j["saved_values"][1]["input"] = true;
  EXPECT_EQ(partition_sentence(read(j)),
            "Saves <b>no activations</b> for the backward and recomputes <b>1 node (10 "
            "FLOPs)</b>; it also keeps 2 inputs (68 B) the backward reads anyway (parameters, "
            "primals: no activation memory). Estimated peak: 192 B.");
  j["saved_values"][1]["input"] = false;
  j["activation_bytes"] = 64;
  EXPECT_NE(partition_sentence(read(j)).find("Saves <b>1 activation (64 B)</b>"),
            std::string::npos);
}

TEST(PartitionChartsSvg, DefaultPartitionsAreMarkedBesideTheSweep) {
  records::PartitionRecord r = record();
  r.strategy = "default";
  r.charts->chosen.reset();
  std::string figure = budget_curve_figure(r);
  EXPECT_NE(figure.find("this partition (default)"), std::string::npos);
  EXPECT_EQ(figure.find("data-chosen"), std::string::npos);
}

TEST(PartitionChartsSvg, TheBudgetCurvesAxisIsActivationMemory) {
  // Inputs count in the saved bytes but cost no activation memory: with each point's activation
  // bytes the axis is those; a record without them (older remat) keeps the saved bytes.
  Json j = record_json();
  int64_t activation = 0;
  for (auto& pt : j["charts"]["budget"]) pt["activation_bytes"] = activation++ * 1024;
  std::string figure = budget_curve_figure(read(j));
  EXPECT_NE(figure.find("data-axis=\"activation\""), std::string::npos);
  EXPECT_NE(figure.find(">activation memory</text>"), std::string::npos);
  EXPECT_NE(figure.find("budget 1.00: 2.0 KB of activation memory (64 B saved in 2 values)"),
            std::string::npos)
      << figure;
  std::string old = budget_curve_figure(record());
  EXPECT_NE(old.find("data-axis=\"saved\""), std::string::npos);
  EXPECT_NE(old.find(">saved bytes</text>"), std::string::npos);
}

TEST(PartitionChartsSvg, APeakAboveSaveEverythingIsExplained) {
  records::PartitionRecord r = record();
  EXPECT_EQ(memory_timeline_figure(*r.charts, nullptr).find("peak-above-save-everything"),
            std::string::npos);  // 192 B against 256 B: nothing to explain
  r.charts->memory[1].peak_bytes = 100;
  r.charts->notes = {"default partition: no such thing"};
  std::string forward = memory_timeline_figure(*r.charts, nullptr);
  EXPECT_NE(forward.find("id=\"peak-above-save-everything\">This partition's estimated peak, "
                         "192 B while <code>mm</code> runs in the forward, is above save "
                         "everything's (100 B)."),
            std::string::npos)
      << forward;
  EXPECT_NE(forward.find("Alive at the peak, the largest: mm 64 B, x 64 B."), std::string::npos);
  EXPECT_NE(forward.find("<p class=\"chart-note\">default partition: no such thing</p>"),
            std::string::npos);
  r.charts->memory[0].peak_step = 4;  // in the backward (3 forward steps)
  std::string backward = memory_timeline_figure(*r.charts, nullptr);
  EXPECT_NE(backward.find("runs in the backward"), std::string::npos);
  EXPECT_NE(backward.find("MUST_SAVE"), std::string::npos);
}

TEST(PartitionChartsSvg, OddChartDataGivesFiguresThatSaySo) {
  records::PartitionRecord r = record();
  records::PartitionCharts& c = *r.charts;
  c.memory[0].peak_bytes = -3;
  c.memory[0].samples.clear();
  c.budget = {{0.0, -5, std::nullopt, 7, 0, ""}, {0.5, 3, std::nullopt, -1, 1, ""}};
  c.chosen = 9;                                 // beyond the points
  c.regions.regions = {{1, {5, 2, "a", "b"}}};  // last before first
  c.regions.saved = {{100, "far"}};             // beyond the nodes
  std::string page = partition_page(r, "[0/0]", nullptr, "");
  for (const char* id : {"id=\"memory-timeline\"", "id=\"budget-curve\"", "id=\"region-map\""})
    EXPECT_NE(page.find(id), std::string::npos) << id;
  // Numbers at the edge of a double's precision still give a few ticks, and end.
  records::PartitionRecord huge = record();
  for (records::BudgetPoint& pt : huge.charts->budget) pt.saved_bytes += 1000000000000000000;
  EXPECT_NE(budget_curve_figure(huge).find("id=\"budget-curve\""), std::string::npos);
  records::PartitionRecord empty = record();
  empty.charts.emplace();
  std::string none = partition_page(empty, "[0/0]", nullptr, "");
  EXPECT_NE(none.find("has no memory curves"), std::string::npos);
  EXPECT_NE(none.find("has no memory-budget sweep"), std::string::npos);
  EXPECT_NE(none.find("has no region map"), std::string::npos);
  // A record without charts (PyTorch's own partitions off older logs) shows its tables only.
  records::PartitionRecord old = record();
  old.charts.reset();
  EXPECT_EQ(partition_page(old, "[0/0]", nullptr, "").find("<figure"), std::string::npos);
}

}  // namespace
}  // namespace remat::report
