#include "remat/driver/compile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "remat/driver/check_run.h"
#include "remat/partition/memory_timeline.h"

namespace remat::driver {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("remat_driver_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  return dir;
}

TEST(Compile, TheMainJobAsOneCall) {
  CompileOptions o;
  o.model = "gpt2";
  o.model_options.layers = 2;
  o.model_options.checkpoint.mode = models::CheckpointPlan::Mode::EachLayer;
  o.out_dir = scratch("gpt2").string();
  o.log_passes = true;
  std::vector<std::string> stages;
  o.progress = [&](std::string_view stage, std::string_view detail, double ms) {
    stages.emplace_back(stage);
    EXPECT_FALSE(detail.empty()) << stage;
    EXPECT_GE(ms, 0);
  };
  Expected<CompileResult> r = compile(o);
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  // No remat-check given: the partition is not checked, and the result says so.
  EXPECT_EQ(stages, (std::vector<std::string>{"trace", "joint graph", "partition", "charts", "log",
                                              "report"}));
  EXPECT_FALSE(r->check.ran);
  EXPECT_EQ(r->check.summary, "skipped");
  EXPECT_EQ(r->partition.report.saved_values.size(), 29U);
  ASSERT_TRUE(r->partition.report.charts);
  EXPECT_EQ(r->partition.report.charts->memory.front().peak_bytes,
            r->partition.report.peak_memory_bytes);
  EXPECT_EQ(node_counts(r->joint), "321 nodes: 28 inputs, 292 ops, the output");
  EXPECT_EQ(r->stages.size(), stages.size());
  EXPECT_TRUE(fs::exists(r->log_path));
  EXPECT_TRUE(fs::exists(fs::path(r->report_dir) / "index.html"));
  EXPECT_TRUE(fs::exists(fs::path(r->report_dir) / "-_0_0_0" / "remat_pass_tag-cleanup_5.txt"));
  // Without a check, no graph files unless asked.
  EXPECT_FALSE(fs::exists(fs::path(o.out_dir) / "graphs"));
  EXPECT_EQ(r->graphs_dir, "");
  EXPECT_GE(r->report_artifacts, 6U);
  fs::remove_all(o.out_dir);
  o.graph_files = true;
  o.log_passes = false;
  o.charts = false;
  stages.clear();
  Expected<CompileResult> with_graphs = compile(o);
  ASSERT_TRUE(with_graphs.ok()) << format_all(with_graphs.errors());
  EXPECT_EQ(stages, (std::vector<std::string>{"trace", "joint graph", "partition", "graph files",
                                              "log", "report"}));
  for (const char* f : {"joint.json", "forward.json", "backward.json"})
    EXPECT_TRUE(fs::exists(fs::path(o.out_dir) / "graphs" / f)) << f;
  EXPECT_EQ(with_graphs->graphs_dir, (fs::path(o.out_dir) / "graphs").string());
  fs::remove_all(o.out_dir);
}

TEST(Compile, BadOptionsAreErrorsAndWriteNothing) {
  CompileOptions o;
  o.model = "no-such-model";
  o.out_dir = scratch("bad").string();
  Expected<CompileResult> r = compile(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(format_all(r.errors()).find("no model 'no-such-model'"), std::string::npos);
  o.model = "mlp";
  o.strategy = partition::Strategy::Default;
  o.log_passes = true;
  EXPECT_FALSE(compile(o).ok());
  EXPECT_FALSE(fs::exists(o.out_dir));
}

TEST(Compile, ACheckExecutableThatDoesNotRunIsAnError) {
  fs::path dir = scratch("check");
  Expected<CheckOutcome> c = run_check((dir / "no-remat-check").string(), "j.json", "f.json",
                                       "b.json", (dir / "check.json").string());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(format_all(c.errors()).find("did not run"), std::string::npos)
      << format_all(c.errors());
}

TEST(Compile, TheCheckResultCarriesMeasuredMemory) {
  auto read = read_check_result(
      R"({"values": 3, "beyond_tolerance": 0, "max_abs_error": 0, "max_rel_error": 0,)"
      R"( "memory": [{"node": "mm", "backward": false, "live": 64},)"
      R"( {"node": "mm_1", "backward": true, "live": 96}]})",
      "check.json");
  ASSERT_TRUE(read.ok()) << format_all(read.errors());
  ASSERT_EQ(read->memory.size(), 2U);
  EXPECT_EQ(read->memory[1].node, "mm_1");
  EXPECT_TRUE(read->memory[1].backward);
  EXPECT_EQ(read->memory[1].live, 96);
  auto bad = read_check_result(
      R"({"values": 3, "beyond_tolerance": 0, "max_abs_error": 0, "max_rel_error": 0,)"
      R"( "memory": [{"node": "mm"}]})",
      "check.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(format_all(bad.errors()).find("check.json"), std::string::npos);
}

// The measured curve lies on the estimate's steps: node for node, the inputs' steps from the
// estimate, so the two draw on one axis.
TEST(Compile, MeasuredMemoryDrawsOnTheEstimatesSteps) {
  CompileOptions o;
  o.model = "mlp";
  o.out_dir = scratch("measured").string();
  Expected<CompileResult> r = compile(o);
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  const ForwardBackward& graphs = r->partition.graphs;
  partition::MemoryTimeline timeline = partition::memory_timeline(graphs);
  std::vector<CheckOutcome::Measured> measured;
  for (size_t i = 0; i < timeline.steps.size(); ++i) {
    const partition::LiveStep& s = timeline.steps[i];
    if (s.node && s.node->op() == OpKind::CallFunction)
      measured.push_back({s.node->name(), i >= timeline.forward_steps, s.live + 100});
  }
  records::TimelineCurve curve = measured_curve(graphs, measured);
  EXPECT_EQ(curve.steps, timeline.steps.size());
  EXPECT_EQ(curve.forward_steps, timeline.forward_steps);
  EXPECT_EQ(curve.peak_bytes, timeline.peak_bytes() + 100);
  ASSERT_FALSE(curve.samples.empty());
  EXPECT_EQ(curve.samples.front().live, timeline.steps.front().live);  // the inputs: estimated
  fs::remove_all(o.out_dir);
}

}  // namespace
}  // namespace remat::driver
