// The partition record's one writer and one reader: what is written reads back the same, and a
// record that is not one fails with the JSON path of what is wrong.
#include <gtest/gtest.h>

#include "remat/records/partition_diff.h"
#include "remat/records/partition_record.h"
#include "remat/support/file_io.h"
#include "testing/golden.h"

namespace remat::records {
namespace {

PartitionRecord sample_record() {
  PartitionRecord r;
  r.strategy = "min-cut";
  r.stage = "min-cut";
  r.saved_values = {
      {"mm", 4096, "cheapest cut", "f32[32, 32]", 2, false},
      {"primals_1", 64, "a primal the backward reads", "f32[16]", std::nullopt, true}};
  r.saved_symints = {"sym_size_int"};
  r.recomputed = {
      {"relu", "aten.relu.default", "tagged PREFER_RECOMPUTE (checkpoint region 2)", 1024}};
  r.banned = {{"rand", "random"}};
  r.cut_value = 12.5;
  r.saved_bytes_total = 4160;
  r.activation_bytes = 4096;
  r.recompute_flops = 1024;
  r.peak_memory_bytes = 9000;
  r.notes = {"a note"};
  PartitionCharts& c = r.charts.emplace();
  c.memory.push_back(memory_curve("this partition (min-cut)",
                                  {{"", 0, 64}, {"mm", 4096, 4160}, {"relu", 4096, 8256}}, 2));
  c.memory[0].samples[1].alive = 2;
  c.memory[0].samples[1].largest = {{"mm", 4096}, {"primals_1", 64}};
  c.budget = {{0.0, 64, 0, 5000, 1, "the inputs only (memory budget 0)"},
              {1.0, 4160, 4096, 1024, 2, "min-cut"}};
  c.chosen = 1;
  RegionMapBuilder map;
  map.add("primals_1", std::nullopt, true, false);
  map.add("mm", 2, true, false);
  map.add("relu", 2, false, true);
  map.add("output", std::nullopt, false, false);
  c.regions = std::move(map).finish();
  c.notes = {"default partition: failed"};
  return r;
}

TEST(PartitionRecord, WhatIsWrittenReadsBackTheSame) {
  PartitionRecord r = sample_record();
  Expected<PartitionRecord> back = read_partition_record(r.json(), "report.json");
  ASSERT_TRUE(back) << back.errors().front().format();
  EXPECT_EQ(back->json(), r.json());
  EXPECT_TRUE(back->inputs_marked);
  EXPECT_TRUE(back->saved_values[1].input);
  EXPECT_FALSE(back->saved_values[0].offloaded);
  // The optimum's third choice: a value in host memory, counted in the summary line.
  r.saved_values[0].offloaded = true;
  back = read_partition_record(r.json(), "report.json");
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->saved_values[0].offloaded);
  EXPECT_NE(r.json().find("\"offloaded\": true"), std::string::npos);
  EXPECT_NE(back->text().find("; 1 offloaded to host memory"), std::string::npos);
  r.saved_values[0].offloaded = false;
  EXPECT_EQ(back->charts->regions.nodes, 4u);
  EXPECT_EQ(back->charts->memory[0].samples[1].largest.size(), 2u);
  EXPECT_EQ(back->charts->budget[0].activation_bytes, 0);
  // Numbers a record read off PyTorch's graphs lacks stay absent, not zero.
  r.activation_bytes.reset();
  r.recompute_flops.reset();
  r.recomputed[0].flops.reset();
  back = read_partition_record(r.json(), "report.json");
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->activation_bytes);
  EXPECT_FALSE(back->recompute_flops);
  EXPECT_FALSE(back->recomputed[0].flops);
  EXPECT_EQ(back->text().find("FLOPs"), std::string::npos);
}

TEST(PartitionRecord, RematCompilesRecordReadsBack) {
  // tests/data/records/mlp_each_layer.json: remat compile's record of a checkpointed MLP, as the
  // report writes it beside its page (also the fuzz target's seed).
  Expected<std::string> text = read_file(testing::data_path("records/mlp_each_layer.json"));
  ASSERT_TRUE(text);
  Expected<PartitionRecord> r = read_partition_record(*text, "mlp_each_layer.json");
  ASSERT_TRUE(r) << r.errors().front().format();
  EXPECT_EQ(r->strategy, "min-cut");
  ASSERT_TRUE(r->charts);
  EXPECT_EQ(r->charts->memory.size(), 3u);
  EXPECT_FALSE(r->charts->budget.empty());
  EXPECT_GT(r->charts->regions.nodes, 0u);
  Expected<PartitionRecord> again = read_partition_record(r->json(), "again.json");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->json(), r->json());
}

TEST(PartitionRecord, TextLeadsWithTheSavedActivations) {
  PartitionRecord r = sample_record();
  r.saved_values.push_back({"addmm", 8192, "cheapest cut", "f32[64, 32]", 1, false});
  r.saved_values.push_back({"primals_2", 32, "a primal the backward reads", "f32[8]", {}, true});
  r.banned.push_back({"primals_1", std::string(kPrimalInputBan)});
  r.banned.push_back({"primals_2", std::string(kPrimalInputBan)});
  std::string text = r.text();
  testing::expect_golden("records/partition_text.txt", text);
  // The activations come first, the largest first; the inputs are one line; no primal is listed
  // among the banned.
  EXPECT_LT(text.find("  addmm"), text.find("  mm "));
  EXPECT_EQ(text.find("  primals_"), std::string::npos) << text;
  EXPECT_NE(text.find("and 2 inputs the backward reads anyway (96 bytes"), std::string::npos);
  EXPECT_NE(text.find("(2 primal inputs are never recomputed)"), std::string::npos);
  EXPECT_LT(text.find("saved activations"), text.find("chosen by"));
}

TEST(PartitionRecord, ARecordWithoutInputMarksSaysSo) {
  // remat before the `input` mark: its saved values cannot be split into activations and inputs.
  std::string old = R"({"schema": "remat-partition-report/1", "strategy": "min-cut",
    "saved_values": [{"name": "a", "bytes": 4, "reason": "r"}]})";
  Expected<PartitionRecord> r = read_partition_record(old, "old.json");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->inputs_marked);
  EXPECT_TRUE(read_partition_record(sample_record().json(), "new.json")->inputs_marked);
}

TEST(PartitionRecord, BadRecordsFailWithTheJsonPath) {
  struct Case {
    const char* json;
    const char* error;
  };
  const Case cases[] = {
      {R"({"strategy": "min-cut"})", "missing \"schema\""},
      {R"({"schema": "remat-partition-report/9"})", "wrong schema"},
      {R"({"schema": "remat-partition-report/1", "saved_values": [{"name": "a"}, {"bytes": "4"}]})",
       "at saved_values[1].bytes: expected an integer, got a string"},
      {R"({"schema": "remat-partition-report/1", "recomputed": [{"flops": 1.5}]})",
       "recomputed[0].flops"},
      {R"({"schema": "remat-partition-report/1", "charts": {"memory": [{"samples": [{"step": -1}]}]}})",
       "at charts.memory[0].samples[0].step: expected a count, got -1"},
      {R"({"schema": "remat-partition-report/1", "charts": {"regions": {"regions": [[1, 2]]}}})",
       "at charts.regions.regions[0]: expected 5 items, got 2"},
      {R"({"schema": "remat-partition-report/1", "charts": {"regions": {"saved": [[1, 2]]}}})",
       "at charts.regions.saved[0][1]: expected a string"},
      {R"({"schema": "remat-partition-report/1", "notes": "x"})", "at notes: expected an array"},
      {R"({"schema": "remat-partition-report/1", "stage": 3)", "report.json:1:"},
  };
  for (const Case& c : cases) {
    Expected<PartitionRecord> r = read_partition_record(c.json, "report.json");
    ASSERT_FALSE(r) << c.json;
    std::string message = r.errors().front().format();
    EXPECT_NE(message.find(c.error), std::string::npos) << c.json << "\n" << message;
    EXPECT_EQ(message.rfind("report.json", 0), 0u) << message;
  }
}

TEST(MemoryCurve, SamplesEachBucketsBusiestStepAndKeepsThePeak) {
  std::vector<CurveStep> steps;
  for (int64_t i = 0; i < 100; ++i) steps.push_back({"n", 1, i == 37 ? 1000 : i});
  TimelineCurve c = memory_curve("c", steps, 50, 10);
  EXPECT_EQ(c.steps, 100u);
  EXPECT_EQ(c.peak_step, 37u);
  EXPECT_EQ(c.peak_bytes, 1000);
  ASSERT_EQ(c.samples.size(), 10u);
  EXPECT_EQ(c.samples[3].step, 37u);  // the peak's bucket shows the peak
  EXPECT_EQ(c.samples[9].step, 99u);  // the others their busiest (last, rising)
  // Equal steps: the first, so that the peak is its bucket's sample.
  TimelineCurve flat = memory_curve("flat", {{"a", 0, 5}, {"b", 0, 5}}, 1, 1);
  EXPECT_EQ(flat.peak_node, "a");
  EXPECT_EQ(flat.samples.at(0).node, "a");
  EXPECT_EQ(memory_curve("none", {}, 0).samples.size(), 0u);
}

TEST(RegionMapBuilder, RunsOfRegionsAndRecomputedNodes) {
  RegionMapBuilder b;
  b.add("x", std::nullopt, true, false);
  b.add("a", 1, false, true);
  b.add("b", 1, false, true);
  b.add("c", 2, true, false);
  b.add("d", 1, false, true);
  RegionMap m = std::move(b).finish();
  EXPECT_EQ(m.nodes, 5u);
  ASSERT_EQ(m.regions.size(), 3u);  // region 1 twice: it is not one run
  EXPECT_EQ(m.regions[0].span.first_name, "a");
  EXPECT_EQ(m.regions[0].span.last_name, "b");
  ASSERT_EQ(m.recomputed.size(), 2u);
  EXPECT_EQ(m.recomputed[0].last, 2u);
  EXPECT_EQ(m.saved, (std::vector<std::pair<size_t, std::string>>{{0, "x"}, {3, "c"}}));
}

}  // namespace
}  // namespace remat::records

namespace remat::records {
namespace {

TEST(PartitionDiff, ValuesThatChangedFateWithTheirCosts) {
  PartitionRecord a = sample_record();  // saves mm (activation) and primals_1, recomputes relu
  PartitionRecord b = a;
  b.saved_values = {a.saved_values[1],  // primals_1 still
                    {"relu", 4096, "marked MUST_SAVE", "f32[32, 32]", 2, false}};
  b.recomputed = {
      {"mm", "aten.mm.default", "tagged PREFER_RECOMPUTE (checkpoint region 2)", 65536}};
  b.activation_bytes = 4096;
  b.recompute_flops = 65536;
  PartitionDiff d = diff_partitions(a, b);
  EXPECT_EQ(d.shared, 3u);
  ASSERT_EQ(d.changes.size(), 2u);
  // Saved -> recomputed first, then recomputed -> saved.
  EXPECT_EQ(d.changes[0].name, "mm");
  EXPECT_EQ(d.changes[0].before, Fate::Saved);
  EXPECT_EQ(d.changes[0].after, Fate::Recomputed);
  EXPECT_EQ(d.changes[0].bytes, 4096);
  EXPECT_EQ(d.changes[0].flops, 65536);
  EXPECT_EQ(d.changes[0].reason, "tagged PREFER_RECOMPUTE (checkpoint region 2)");
  EXPECT_EQ(d.changes[1].name, "relu");
  EXPECT_EQ(d.changes[1].after, Fate::Saved);
  EXPECT_EQ(d.changes[1].reason, "marked MUST_SAVE");
  EXPECT_EQ(d.before.activations, 1u);
  EXPECT_EQ(d.before.inputs, 1u);
  EXPECT_EQ(d.after.recompute_flops, 65536);
  // The same partition twice: nothing changed.
  EXPECT_TRUE(diff_partitions(a, a).changes.empty());
  // A value no longer kept at all is computed once, without a reason of its own.
  PartitionRecord c = a;
  c.recomputed.clear();
  PartitionDiff gone = diff_partitions(a, c);
  ASSERT_EQ(gone.changes.size(), 1u);
  EXPECT_EQ(fate_name(gone.changes[0].after), "computed once");
  EXPECT_EQ(gone.changes[0].reason, "");
}

}  // namespace
}  // namespace remat::records
