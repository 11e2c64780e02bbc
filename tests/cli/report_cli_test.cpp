// End-to-end: `remat report` on PyTorch's logs and `remat compile` (the main job).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "testing/golden.h"
#include "testing/graph_page.h"

namespace {

namespace fs = std::filesystem;

struct CliResult {
  int exit_code;
  std::string out, err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path scratch(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("remat_report_cli_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

CliResult run(const std::string& args, const fs::path& dir) {
  std::string cmd = std::string(REMAT_EXE) + " " + args + " >" + (dir / "stdout").string() + " 2>" +
                    (dir / "stderr").string();
  int status = std::system(cmd.c_str());
  return {WEXITSTATUS(status), slurp(dir / "stdout"), slurp(dir / "stderr")};
}

std::string log_path(const std::string& name) {
  return remat::testing::data_path("tlparse-logs/" + name);
}

TEST(ReportCli, PyTorchsLogGivesTheSite) {
  fs::path dir = scratch("simple");
  CliResult r = run("report " + log_path("simple.log") + " -o " + (dir / "site").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("index.html (10 artifacts"), std::string::npos) << r.out;
  for (const char* f : {"index.html", "compile_directory.json", "raw.jsonl", "raw.log",
                        "failures_and_restarts.html", "-_0_0_0/aot_inference_graph_2.txt",
                        "-_0_0_0/compilation_metrics_9.html"}) {
    EXPECT_TRUE(fs::exists(dir / "site" / f)) << f;
  }
  // An existing folder is kept unless --overwrite; nothing half-written is left behind.
  CliResult again = run("report " + log_path("simple.log") + " -o " + (dir / "site").string(), dir);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  CliResult overwrite = run(
      "report " + log_path("simple.log") + " -o " + (dir / "site").string() + " --overwrite", dir);
  EXPECT_EQ(overwrite.exit_code, 0) << overwrite.err;
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir))
    entries += e.path().filename().string().find("remat-tmp") != std::string::npos;
  EXPECT_EQ(entries, 0u);
}

TEST(ReportCli, TlparsesFlags) {
  fs::path dir = scratch("flags");
  CliResult help = run("report --help", dir);
  for (const char* flag :
       {"--latest", "--strict", "--strict-compile-id", "--overwrite", "-o,--output",
        "--all-ranks-html", "-e,--export", "-p,--plain-text", "-v,--verbose", "--no-browser"})
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
  CliResult strict_id = run(
      "report " + log_path("export.log") + " --strict-compile-id -o " + (dir / "a").string(), dir);
  EXPECT_EQ(strict_id.exit_code, 2);
  EXPECT_NE(strict_id.err.find("outside any compile"), std::string::npos) << strict_id.err;
  EXPECT_FALSE(fs::exists(dir / "a"));
  CliResult exported =
      run("report " + log_path("export.log") + " -e --no-browser -o " + (dir / "e").string(), dir);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_NE(slurp(dir / "e" / "index.html").find("Data Dependent Error"), std::string::npos);
  CliResult ranks = run("report " + remat::testing::data_path("tlparse-logs/multi_rank_logs") +
                            " --all-ranks-html -o " + (dir / "r").string(),
                        dir);
  ASSERT_EQ(ranks.exit_code, 0) << ranks.err;
  EXPECT_NE(ranks.out.find("(4 ranks, the ranks diverged"), std::string::npos) << ranks.out;
  EXPECT_TRUE(fs::exists(dir / "r" / "rank_1" / "index.html"));
  CliResult plain =
      run("report " + log_path("simple.log") + " -p -v -o " + (dir / "p").string(), dir);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(fs::exists(
      dir / "p" / "-_0_0_0" /
      "inductor_output_code_cyjwx6x6efpuwt4dvr4ev42v4ghac5zo2uggvscht2otwnesito6_5.txt"));
  EXPECT_NE(plain.err.find("Stats { ok: 64 }"), std::string::npos) << plain.err;
}

TEST(ReportCli, LogsWithoutCompileEventsGiveAReportThatSaysSo) {
  // Empty, and a single line cut from a real log: a report that says there is nothing, never a
  // write error. A file with not one log line in it (text or binary) is not a log: exit 2.
  fs::path dir = scratch("nothing");
  std::ofstream(dir / "empty.log").close();
  std::ofstream(dir / "junk.log") << "junk junk\n";
  std::ofstream(dir / "binary.log") << std::string(
      "\x7f"
      "ELF\0\1\2",
      7);
  for (const char* log : {"junk.log", "binary.log"}) {
    CliResult r = run("report " + (dir / log).string() + " -o " + (dir / "no.site").string(), dir);
    EXPECT_EQ(r.exit_code, 2) << log;
    EXPECT_NE(r.err.find(std::string(log) + ": error: not a TORCH_TRACE log"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir / "no.site")) << log;
  }
  std::ifstream real(log_path("simple.log"));
  std::string first;
  std::getline(real, first);
  std::ofstream(dir / "one.log") << first << "\n";
  for (const char* log : {"empty.log", "one.log"}) {
    CliResult r = run(
        "report " + (dir / log).string() + " -o " + (dir / (std::string(log) + ".site")).string(),
        dir);
    EXPECT_EQ(r.exit_code, 0) << log << ": " << r.err;
    EXPECT_NE(r.err.find(std::string(log) + ": no compile events"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("cannot write"), std::string::npos) << r.err;
    std::string index = slurp(dir / (std::string(log) + ".site") / "index.html");
    EXPECT_NE(index.find("id=\"no-compile-events\""), std::string::npos) << log;
  }
}

TEST(ReportCli, AGraphFileGivesTheReportOfOneCompile) {
  fs::path dir = scratch("graphs");
  auto data = [](const std::string& name) {
    return remat::testing::data_path("torch-1.13/" + name);
  };
  // A joint graph with the partition PyTorch made of it: marks read off the two graphs.
  CliResult theirs = run(
      "report " + data("norm_stack_joint.json") + " --fw " + data("norm_stack_default_fw.json") +
          " --bw " + data("norm_stack_default_bw.json") + " -o " + (dir / "theirs").string(),
      dir);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  std::string joint = slurp(dir / "theirs" / "-_0_0_0" / "aot_joint_graph_0.html");
  // PyTorch 1.13 saves 16 values, 1124 bytes: 9 activations and 7 of the step's inputs.
  EXPECT_NE(joint.find("saved</span> 9 activations (724 B) and 7 inputs (400 B)"),
            std::string::npos)
      << joint.substr(0, 3000);
  EXPECT_NE(joint.find("derived from the logged forward and backward graphs"), std::string::npos);
  // A joint graph alone: remat partitions it, with its reasons on the page. (Its 1.13 text has no
  // sizes to cut by: that is an error saying so.)
  CliResult sizeless =
      run("report " + data("mlp_relu_joint.txt") + " -o " + (dir / "sizeless").string(), dir);
  EXPECT_EQ(sizeless.exit_code, 2);
  EXPECT_NE(
      sizeless.err.find(
          "mlp_relu_joint.txt: error: min-cut partition: input primals_1 has no tensor metadata"),
      std::string::npos)
      << sizeless.err;
  CliResult ours =
      run("report " + data("mlp_relu_joint.json") + " -o " + (dir / "ours").string(), dir);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  joint = slurp(dir / "ours" / "-_0_0_0" / "aot_joint_graph_0.html");
  EXPECT_NE(joint.find("id=\"why-panel\""), std::string::npos);
  EXPECT_NE(joint.find("from the remat_partition record"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "ours" / "-_0_0_0" / "remat_partition_3.html"));
  // A forward graph: its page, no partition.
  CliResult forward =
      run("report " + data("mlp_relu_default_fw.json") + " -o " + (dir / "forward").string(), dir);
  ASSERT_EQ(forward.exit_code, 0) << forward.err;
  EXPECT_TRUE(fs::exists(dir / "forward" / "-_0_0_0" / "dynamo_output_graph_0.html"));
  // Graph-file options on a log, and a bad graph file: exit 2, nothing written.
  EXPECT_EQ(
      run("report " + log_path("simple.log") + " --strategy default -o " + (dir / "no").string(),
          dir)
          .exit_code,
      2);
  EXPECT_EQ(
      run("report " + log_path("simple.log") + " --strategy min-cut -o " + (dir / "no").string(),
          dir)
          .exit_code,
      2);
  std::ofstream(dir / "bad.json") << "{\"schema\": \"fxgraph-json/1\", \"nodes\": [\n";
  CliResult bad =
      run("report " + (dir / "bad.json").string() + " -o " + (dir / "bad").string(), dir);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.json:"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir / "no"));
  EXPECT_FALSE(fs::exists(dir / "bad"));
}

TEST(ReportCli, PyTorchsPartitionReadOffItsGraphsGetsThePictures) {
  // remat's partition of a checkpointed MLP, reported twice: with remat's record, and as PyTorch's
  // logs would show it (the three graphs alone). Read off the text, the memory timeline peaks
  // where remat's estimate does (no op of this model returns a tuple, whose unannotated outputs
  // the text cannot weigh).
  fs::path dir = scratch("derived");
  CliResult compiled = run(
      "compile --model mlp --checkpoint each-layer --no-check --graphs -o " + (dir / "c").string(),
      dir);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  fs::path graphs = dir / "c" / "graphs";
  CliResult theirs = run(
      "report " + (graphs / "joint.json").string() + " --fw " + (graphs / "forward.json").string() +
          " --bw " + (graphs / "backward.json").string() + " -o " + (dir / "theirs").string(),
      dir);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  std::string ours = slurp(dir / "c" / "report" / "-_0_0_0" / "remat_partition_4.html");
  std::string derived = slurp(dir / "theirs" / "-_0_0_0" / "pytorch_partition.html");
  auto peak = [](const std::string& page) {
    size_t at = page.find("data-peak-bytes=\"");
    return at == std::string::npos ? std::string("none")
                                   : page.substr(at + 17, page.find('"', at + 17) - at - 17);
  };
  EXPECT_NE(peak(ours), "none");
  EXPECT_EQ(peak(derived), peak(ours));
  for (const char* element :
       {"id=\"memory-timeline\"", "id=\"region-map\"", "data-ac-graph-id=\"1\"",
        "has no memory-budget sweep", "href=\"aot_joint_graph_0.html#L", "id=\"saved-values\""})
    EXPECT_NE(derived.find(element), std::string::npos) << element;
  // Each joint graph page links its partition's pictures.
  EXPECT_NE(slurp(dir / "theirs" / "-_0_0_0" / "aot_joint_graph_0.html")
                .find("id=\"partition-pictures\" href=\"pytorch_partition.html\""),
            std::string::npos);
  EXPECT_NE(slurp(dir / "c" / "report" / "-_0_0_0" / "aot_joint_graph_1.html")
                .find("id=\"partition-pictures\" href=\"remat_partition_4.html\""),
            std::string::npos);
  std::string index = slurp(dir / "theirs" / "index.html");
  EXPECT_NE(index.find("href=\"-_0_0_0/pytorch_partition.html\""), std::string::npos);
  // The same for PyTorch 1.13's own partition of a graph.
  auto data = [](const std::string& name) {
    return remat::testing::data_path("torch-1.13/" + name);
  };
  ASSERT_EQ(run("report " + data("norm_stack_joint.json") + " --fw " +
                    data("norm_stack_default_fw.json") + " --bw " +
                    data("norm_stack_default_bw.json") + " -o " + (dir / "t113").string(),
                dir)
                .exit_code,
            0);
  EXPECT_NE(slurp(dir / "t113" / "-_0_0_0" / "pytorch_partition.html").find("<polyline"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(ReportCli, CorruptedLogCountsItsBadLineAndStrictRefusesIt) {
  fs::path dir = scratch("corrupted");
  CliResult lenient = run(
      "report " + log_path("simple_corrupted_json.log") + " -o " + (dir / "site").string(), dir);
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_NE(lenient.err.find("64 records, 1 payload whose MD5 differs"), std::string::npos)
      << lenient.err;
  EXPECT_NE(lenient.err.find("simple_corrupted_json.log:13:"), std::string::npos) << lenient.err;
  CliResult strict = run("report " + log_path("simple_corrupted_json.log") + " -o " +
                             (dir / "strict").string() + " --strict",
                         dir);
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_NE(strict.err.find("simple_corrupted_json.log:13: error:"), std::string::npos)
      << strict.err;
  EXPECT_FALSE(fs::exists(dir / "strict"));
  CliResult clean = run(
      "report " + log_path("simple.log") + " -o " + (dir / "clean").string() + " --strict", dir);
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
}

TEST(ReportCli, FolderOfLogs) {
  fs::path dir = scratch("folder");
  fs::create_directories(dir / "logs");
  fs::copy_file(log_path("simple.log"), dir / "logs" / "dedicated_log_torch_trace_a.log");
  CliResult one = run("report " + (dir / "logs").string() + " -o " + (dir / "one").string(), dir);
  EXPECT_EQ(one.exit_code, 0) << one.err;
  fs::copy_file(log_path("comp_failure.log"), dir / "logs" / "dedicated_log_torch_trace_b.log");
  CliResult two = run("report " + (dir / "logs").string() + " -o " + (dir / "two").string(), dir);
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("--latest"), std::string::npos) << two.err;
  CliResult latest =
      run("report " + (dir / "logs").string() + " --latest -o " + (dir / "latest").string(), dir);
  EXPECT_EQ(latest.exit_code, 0) << latest.err;
  EXPECT_TRUE(fs::exists(dir / "latest" / "-_0_0_0"));
  CliResult missing = run("report " + (dir / "nothing_here").string(), dir);
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(CompileCli, Gpt2WithCheckpointsGivesLogAndReport) {
  // The README's main job: the joint graph's page shows the recompute tags and the partition.
  fs::path dir = scratch("compile");
  CliResult r = run(
      "compile --model gpt2 --layers 4 --checkpoint each-layer -o " + (dir / "out").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("saved: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("report: "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("partition"), std::string::npos) << r.err;  // progress, stage by stage
  size_t logs = 0;
  for (const auto& e : fs::directory_iterator(dir / "out" / "trace"))
    logs += e.path().filename().string().starts_with("dedicated_log_torch_trace_");
  EXPECT_EQ(logs, 1u);
  fs::path site = dir / "out" / "report";
  std::string joint = slurp(site / "-_0_0_0" / "aot_joint_graph_1.html");
  ASSERT_FALSE(joint.empty());
  EXPECT_NE(joint.find("# ac_graph_id: 4 - PREFER_RECOMPUTE"), std::string::npos);
  auto joint_page = remat::testing::read_graph_page(joint);
  ASSERT_TRUE(joint_page);
  std::set<int64_t> regions;
  for (const auto& [line, region] : joint_page->region_of_line) regions.insert(region);
  EXPECT_TRUE(regions.contains(4));
  std::set<std::string> kinds;
  for (const auto& chip : joint_page->chips) kinds.insert(chip.kind);
  for (const char* kind : {"saved", "recomputed", "forward", "backward"})
    EXPECT_TRUE(kinds.contains(kind)) << kind;
  std::string index = slurp(site / "index.html");
  EXPECT_NE(index.find("activation memory"), std::string::npos);
  EXPECT_NE(index.find("MFLOPs"), std::string::npos);  // units, not raw counts
  EXPECT_NE(joint.find("id=\"why-panel\""), std::string::npos);
  EXPECT_NE(joint.find("boundary between checkpoint regions"),
            std::string::npos);  // the partitioner's reasons on the page
  // The partition record as tables, linked from the index instead of raw JSON.
  std::string partition = slurp(site / "-_0_0_0" / "remat_partition_4.html");
  EXPECT_NE(partition.find("id=\"saved-values\""), std::string::npos);
  // What other budgets and the optimum would do, with the command for each policy.
  EXPECT_NE(partition.find("<table id=\"what-if-table\">"), std::string::npos);
  EXPECT_NE(partition.find("--strategy optimal --budget 0.5 -o policy.py"), std::string::npos);
  // The activations first; the parameters and primals the backward reads anyway folded below.
  EXPECT_NE(partition.find("<h2>Saved activations ("), std::string::npos);
  EXPECT_LT(partition.find("id=\"saved-values\""), partition.find("<details id=\"saved-inputs\">"));
  EXPECT_NE(partition.find("inputs the backward reads anyway"), std::string::npos);
  std::string record = slurp(site / "-_0_0_0" / "remat_partition_4.json");
  EXPECT_NE(record.find("\"input\": true"), std::string::npos);
  EXPECT_NE(partition.find("id=\"recomputed-nodes\""), std::string::npos);
  EXPECT_NE(partition.find("chosen by"), std::string::npos);
  EXPECT_NE(index.find("href=\"-_0_0_0/remat_partition_4.html\""), std::string::npos);
  EXPECT_NE(index.find("remat compile --model gpt2"),
            std::string::npos);  // the footer's command line
  EXPECT_TRUE(fs::exists(site / "-_0_0_0" / "remat_partition_4.json"));
  // The log reads back through `remat report --strict` too (tlparse's own checks).
  CliResult again =
      run("report " + (dir / "out" / "trace").string() + " --strict -o " + (dir / "again").string(),
          dir);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  // Twice: refused, as every verb refuses a folder that holds files; with --overwrite, one log
  // and the report replaced.
  CliResult refused = run(
      "compile --model gpt2 --layers 4 --checkpoint each-layer -o " + (dir / "out").string(), dir);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("out: error: already exists (pass --overwrite to replace it)"),
            std::string::npos)
      << refused.err;
  CliResult twice = run("compile --model gpt2 --layers 4 --checkpoint each-layer --overwrite -o " +
                            (dir / "out").string(),
                        dir);
  EXPECT_EQ(twice.exit_code, 0) << twice.err;
  logs = 0;
  for (const auto& e : fs::directory_iterator(dir / "out" / "trace"))
    logs += e.path().filename().string().starts_with("dedicated_log_torch_trace_");
  EXPECT_EQ(logs, 1u);
}

TEST(CompileCli, LogPassesPutsThePassesGraphsInTheLog) {
  fs::path dir = scratch("log_passes");
  CliResult r =
      run("compile --model gpt2 --layers 2 --checkpoint each-layer --no-check --log-passes -o " +
              (dir / "out").string(),
          dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Only the tag clean-up changes this joint (no dead code, nothing to merge): one artifact, the
  // joint with the region boundaries it made MUST_SAVE.
  std::string pass = slurp(dir / "out" / "report" / "-_0_0_0" / "remat_pass_tag-cleanup_5.txt");
  EXPECT_NE(pass.find("class inner_f"), std::string::npos);
  EXPECT_NE(pass.find("MUST_SAVE"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "out" / "report" / "-_0_0_0" / "remat_pass_dead_code_5.txt"));
  EXPECT_EQ(
      run("compile --model mlp --strategy default --log-passes -o " + (dir / "no").string(), dir)
          .exit_code,
      2);
}

TEST(CompileCli, BadModelExitsTwo) {
  fs::path dir = scratch("bad");
  CliResult r = run("compile --model nope -o " + (dir / "out").string(), dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown model 'nope'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
