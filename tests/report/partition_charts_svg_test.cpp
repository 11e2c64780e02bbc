// The partition page's pictures from a record's charts: what they show, where they link, and that
// a record with broken chart data still gives a page.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "remat/report/partition_charts_svg.h"
#include "remat/report/partition_html.h"

namespace remat::report {
namespace {

using Json = nlohmann::ordered_json;

Json record() {
  return Json::parse(R"json({
    "strategy": "min-cut", "saved_bytes_total": 64, "recompute_flops": 10, "peak_memory_bytes": 192,
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

TEST(PartitionChartsSvg, FiguresShowTheRecordsNumbersAndLinkToTheJoint) {
  NodeLinks links{"joint.html", {{"mm", 7}, {"big", 4}, {"sin", 5}}};
  Json r = record();
  std::string page = partition_page(r, "[0/0]", &links);
  for (const char* expected :
       {"id=\"memory-timeline\" class=\"chart\" data-peak-bytes=\"192\" data-peak-step=\"2\" "
        "data-peak-node=\"mm\"",
        "<a href=\"joint.html#L7\"><circle class=\"peak\"", "class=\"curve c1\"",
        "save everything (no recomputation): peak 256 B",
        "step 2: mm (64 B), 192 B live in 3 values; the largest: mm 64 B, x 64 B",
        "id=\"budget-curve\" class=\"chart\" data-points=\"3\" data-chosen=\"1\" data-knee=\"1\"",
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
  EXPECT_EQ(partition_page(r, "[0/0]").find("href=\"joint.html"), std::string::npos);
}

TEST(PartitionChartsSvg, ManyRegionsShareLanesAndNearbyRunsMerge) {
  // 300 checkpointed layers of 100 nodes each, one after another, every other node recomputed:
  // one lane for the regions, and the runs, closer than a pixel, drawn as few marks.
  Json charts = {{"regions",
                  {{"nodes", 30000},
                   {"regions", Json::array()},
                   {"saved", Json::array()},
                   {"recomputed", Json::array()}}}};
  for (int i = 0; i < 300; ++i)
    charts["regions"]["regions"].push_back({i, i * 100, i * 100 + 99, "a", "b"});
  for (int i = 0; i < 30000; i += 2) charts["regions"]["recomputed"].push_back({i, i, "r", "r"});
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

TEST(PartitionChartsSvg, DefaultPartitionsAreMarkedBesideTheSweep) {
  Json r = record();
  r["strategy"] = "default";
  r["charts"].erase("chosen");
  std::string figure = budget_curve_figure(r);
  EXPECT_NE(figure.find("this partition (default)"), std::string::npos);
  EXPECT_EQ(figure.find("data-chosen"), std::string::npos);
}

TEST(PartitionChartsSvg, BrokenChartDataGivesFiguresThatSaySo) {
  Json r = record();
  r["charts"] = Json::parse(R"json({"memory": [1, "x", {"samples": 5, "peak_bytes": -3}],
    "budget": [{"saved_bytes": -5}, 7], "chosen": 9, "knee": "x",
    "regions": {"nodes": 3, "regions": [[1], "x", [2, -1, 5, 3, 4]], "saved": [[-3, 7], 1],
                "recomputed": [[1, 2], [5, -9, "a", 1]]}})json");
  std::string page = partition_page(r, "[0/0]");
  for (const char* id : {"id=\"memory-timeline\"", "id=\"budget-curve\"", "id=\"region-map\""})
    EXPECT_NE(page.find(id), std::string::npos) << id;
  // Numbers at the edge of a double's precision still give a few ticks, and end.
  Json huge = record();
  for (auto& pt : huge["charts"]["budget"])
    pt["saved_bytes"] = 1e18 + pt["saved_bytes"].get<double>();
  EXPECT_NE(budget_curve_figure(huge).find("id=\"budget-curve\""), std::string::npos);
  Json empty = record();
  empty["charts"] = Json::object();
  std::string none = partition_page(empty, "[0/0]");
  EXPECT_NE(none.find("has no memory curves"), std::string::npos);
  EXPECT_NE(none.find("has no memory-budget sweep"), std::string::npos);
  EXPECT_NE(none.find("has no region map"), std::string::npos);
  // A record without charts (older logs, PyTorch's own) shows its tables only.
  Json old = record();
  old.erase("charts");
  EXPECT_EQ(partition_page(old, "[0/0]").find("<figure"), std::string::npos);
}

}  // namespace
}  // namespace remat::report
