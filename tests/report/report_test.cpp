// The report on PyTorch's own logs (tlparse's test inputs): the files tlparse writes, with the
// same compile ids, artifact names and numbers; and graph pages from the text alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "remat/report/graph_html.h"
#include "remat/report/html.h"
#include "remat/report/report_builder.h"
#include "remat/support/file_io.h"
#include "remat/tracelog/md5.h"
#include "remat/tracelog/trace_writer.h"
#include "testing/golden.h"
#include "testing/graph_page.h"

namespace remat::report {
namespace {

namespace fs = std::filesystem;

ReportResult report_of(const std::string& log, const std::string& name) {
  std::string out = ::testing::TempDir() + "/remat_report_" + name;
  fs::remove_all(out);
  fs::create_directories(out);
  ReportOptions options;
  options.version = "test";
  options.year = 2024;
  auto r = write_report(testing::data_path(log), out, options);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : format_all(r.errors()));
  return r.ok() ? *r : ReportResult{};
}

size_t lines_of(const std::string& path) {
  std::ifstream f(path);
  size_t n = 0;
  for (std::string line; std::getline(f, line);) ++n;
  return n;
}

TEST(Report, SimpleLogGivesTlparsesFiles) {
  ReportResult r = report_of("tlparse-logs/simple.log", "simple");
  std::set<std::string> files(r.files.begin(), r.files.end());
  // tlparse numbers every output with one counter, in log order.
  for (const char* f :
       {"-_0_0_0/dynamo_output_graph_0.txt", "-_0_0_0/aot_forward_graph_fw_metadata_1.txt",
        "-_0_0_0/aot_inference_graph_2.txt", "-_0_0_0/fx_graph_runnable_3.txt",
        "-_0_0_0/inductor_post_grad_graph_4.txt",
        "-_0_0_0/inductor_output_code_cyjwx6x6efpuwt4dvr4ev42v4ghac5zo2uggvscht2otwnesito6_5.html",
        "-_0_0_0/fx_graph_cache_miss_6.json", "-_0_0_0/aotautograd_cache_hash_7.json",
        "-_0_0_0/dynamo_cpp_guards_str_8.txt", "-_0_0_0/compilation_metrics_9.html", "index.html",
        "compile_directory.json", "failures_and_restarts.html", "raw.jsonl", "raw.log",
        "chromium_events.json"}) {
    EXPECT_TRUE(files.contains(f)) << f;
  }
  EXPECT_EQ(r.artifacts, 10u);
  EXPECT_EQ(r.stats.failures(), 0u);
  std::string out = ::testing::TempDir() + "/remat_report_simple";
  EXPECT_EQ(lines_of(out + "/raw.jsonl"), 15u);  // the string table + 14 records
  auto first = read_file(out + "/raw.jsonl");
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->starts_with("{\"string_table\":")) << first->substr(0, 80);
  EXPECT_NE(first->find("\"timestamp\":\"2024-12-06T15:18:20.254000Z\""), std::string::npos);
  auto directory = read_file(out + "/compile_directory.json");
  ASSERT_TRUE(directory.ok());
  EXPECT_NE(directory->find("\"[0/0]\""), std::string::npos);
  EXPECT_NE(directory->find("\"name\": \"fx_graph_cache_miss_6.json\""), std::string::npos);
  EXPECT_NE(directory->find("\"suffix\": \"\u274c\""), std::string::npos);
  auto index = read_file(out + "/index.html");
  ASSERT_TRUE(index.ok());
  EXPECT_NE(index->find("test_torchinductor.py"), std::string::npos);  // the stack trie
  EXPECT_NE(index->find("nodes,"), std::string::npos);  // sizes beside graph artifacts
  // An inference compile: the index says why there is no saved value to show.
  EXPECT_NE(index->find("id=\"no-partitions\""), std::string::npos);
  // 50 chromium events, as one JSON array.
  auto chromium = read_file(out + "/chromium_events.json");
  ASSERT_TRUE(chromium.ok());
  EXPECT_EQ(std::count(chromium->begin(), chromium->end(), '\n'), 52);
}

TEST(Report, TheSameLogGivesTheSameBytes) {
  report_of("tlparse-logs/simple.log", "again_a");
  report_of("tlparse-logs/simple.log", "again_b");
  std::string a = ::testing::TempDir() + "/remat_report_again_a",
              b = ::testing::TempDir() + "/remat_report_again_b";
  size_t compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(a)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = fs::relative(entry.path(), a).string();
    auto x = read_file(entry.path().string()), y = read_file((fs::path(b) / rel).string());
    ASSERT_TRUE(x.ok() && y.ok()) << rel;
    EXPECT_EQ(*x, *y) << rel;
    ++compared;
  }
  EXPECT_GT(compared, 15u);
}

TEST(Report, CorruptedLogIsReportedWithItsBadLineCounted) {
  ReportResult r = report_of("tlparse-logs/simple_corrupted_json.log", "corrupted");
  EXPECT_EQ(r.stats.fail_payload_md5, 1u);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_TRUE(r.problems[0].starts_with("13: ")) << r.problems[0];
  EXPECT_EQ(lines_of(::testing::TempDir() + "/remat_report_corrupted/raw.jsonl"), 15u);
  auto chromium = read_file(::testing::TempDir() + "/remat_report_corrupted/chromium_events.json");
  ASSERT_TRUE(chromium.ok());
  EXPECT_EQ(std::count(chromium->begin(), chromium->end(), '\n'),
            51);  // the broken event is left out
}

TEST(Report, CompilationFailuresAreListed) {
  ReportResult r = report_of("tlparse-logs/comp_failure.log", "failure");
  std::set<std::string> files(r.files.begin(), r.files.end());
  bool metrics = false, graph = false;
  for (const std::string& f : files) {
    metrics = metrics || f.starts_with("-_0_0_0/compilation_metrics");
    graph = graph || f.starts_with("-_0_0_0/dynamo_output_graph");
  }
  EXPECT_TRUE(metrics);
  EXPECT_TRUE(graph);
  auto failures =
      read_file(::testing::TempDir() + "/remat_report_failure/failures_and_restarts.html");
  ASSERT_TRUE(failures.ok());
  EXPECT_NE(failures->find("<td>"), std::string::npos);
}

TEST(Report, ArtifactsLogHasTheCacheHash) {
  ReportResult r = report_of("tlparse-logs/artifacts.log", "artifacts");
  bool found = false;
  for (const std::string& f : r.files)
    found = found || f.starts_with("-_0_0_0/fx_graph_cache_hash");
  EXPECT_TRUE(found);
}

TEST(Report, RecordsOutsideACompileGoToTheDashesFolder) {
  // tlparse reads a missing compile id as one with no parts: `[-/-]`, folder `-_-_-_-/`. Outside
  // export mode it has no page for export.log's exported program: the payload (which runs across
  // the blank lines inside it) goes to payloads/, and `[-/-]` is in the directory with no files.
  ReportResult r = report_of("tlparse-logs/export.log", "export");
  std::string out = ::testing::TempDir() + "/remat_report_export";
  auto program = read_file(out + "/payloads/3d5fc8d52ca224c024a08ee8aa2e2850.txt");
  ASSERT_TRUE(program.ok());
  EXPECT_NE(program->find("Range constraints:"), std::string::npos);
  EXPECT_FALSE(fs::exists(out + "/-_-_-_-/exported_program_0.txt"));
  auto directory = nlohmann::json::parse(*read_file(out + "/compile_directory.json"));
  ASSERT_TRUE(directory.contains("[-/-]")) << directory.dump();
  EXPECT_TRUE(directory["[-/-]"]["artifacts"].empty());
  EXPECT_EQ(r.stats.fail_payload_md5, 1u);  // the blank lines lost their tabs
  // Chromium events outside a compile put `[-/-]` in the directory too (simple.log has six).
  report_of("tlparse-logs/simple.log", "simple_dashes");
  directory = nlohmann::json::parse(
      *read_file(::testing::TempDir() + "/remat_report_simple_dashes/compile_directory.json"));
  EXPECT_TRUE(directory.contains("[-/-]")) << directory.dump();
}

TEST(Report, ProvenanceModeGivesEveryCompileItsPage) {
  // tlparse's --inductor-provenance writes provenance_tracking_<compile>.html for every compile,
  // with mappings or without: remat's page then says how to make PyTorch log them.
  std::string out = ::testing::TempDir() + "/remat_report_provenance_all";
  fs::remove_all(out);
  fs::create_directories(out);
  ReportOptions options;
  options.version = "test";
  options.inductor_provenance = true;
  ASSERT_TRUE(write_report(testing::data_path("tlparse-logs/simple.log"), out, options).ok());
  for (const char* page :
       {"provenance_tracking_-_-_-_-.html", "provenance_tracking_-_0_0_0.html"}) {
    auto text = read_file(out + "/" + page);
    ASSERT_TRUE(text.ok()) << page;
    EXPECT_NE(text->find("provenance_tracking_level"), std::string::npos) << page;
  }
}

TEST(Report, ExportModeLeadsWithWhatExportMet) {
  // export.log: one data-dependent expression export specialized (its guards were not evaluated
  // by export itself), the trie of how the expression was built, and the exported program.
  std::string out = ::testing::TempDir() + "/remat_report_export_mode";
  fs::remove_all(out);
  fs::create_directories(out);
  ReportOptions options;
  options.export_mode = true;
  auto r = write_report(testing::data_path("tlparse-logs/export.log"), out, options);
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  EXPECT_EQ(r->export_failures, 1u);
  auto index = read_file(out + "/index.html");
  ASSERT_TRUE(index.ok());
  EXPECT_NE(index->find("<td>Data Dependent Error</td>"), std::string::npos);
  EXPECT_NE(index->find("<code>Eq((((-u0)//3)) + 5, 0)</code>"), std::string::npos);
  EXPECT_NE(index->find("href='-_-_-_-/symbolic_guard_information_0.html'"), std::string::npos)
      << *index;
  EXPECT_NE(index->find("href=\"-_-_-_-/exported_program_1.txt\""), std::string::npos) << *index;
  auto page = read_file(out + "/-_-_-_-/symbolic_guard_information_0.html");
  ASSERT_TRUE(page.ok());
  EXPECT_NE(page->find("-u0</code> = neg(u0)"), std::string::npos) << *page;
  EXPECT_NE(page->find("test_draft_export.py:279 in forward"), std::string::npos);
  EXPECT_NE(page->find("return z[:a]"), std::string::npos);
  auto program = read_file(out + "/-_-_-_-/exported_program_1.txt");
  ASSERT_TRUE(program.ok());
  EXPECT_TRUE(program->starts_with("ExportedProgram:"));
}

TEST(Report, InductorProvenanceLinksGraphLinesAndKernels) {
  // One compile's pre-grad graph, post-grad graph, code and node mappings: the page maps each
  // node's line to the lines it became, and each kernel launch to the nodes it computes.
  std::string dir = ::testing::TempDir() + "/remat_provenance_mappings";
  fs::remove_all(dir);
  auto w = tracelog::TraceWriter::create(dir);
  ASSERT_TRUE(w.ok());
  tracelog::CompileId id{std::nullopt, 0, 0, 0};
  (*w)->write("inductor_pre_grad_graph", "{}", id,
              "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[4]\"):\n"
              "        mul: \"f32[4]\" = x * 2;  x = None\n        return (mul,)\n        ");
  (*w)->write("inductor_post_grad_graph", "{}", id,
              "class GraphModule(torch.nn.Module):\n    def forward(self, arg0_1: \"f32[4]\"):\n"
              "        mul_1: \"f32[4]\" = torch.ops.aten.mul.Tensor(arg0_1, 2);  arg0_1 = None\n"
              "        return (mul_1,)\n        ");
  (*w)->write("inductor_output_code", R"({"filename": "/tmp/k.py"})", id,
              "triton_poi_fused_mul_0 = async_compile.triton('triton_poi_fused_mul_0', '...')\n"
              "def call(args):\n    buf0 = empty((4,))\n    triton_poi_fused_mul_0.run(arg0_1, "
              "buf0, 4)\n    return (buf0,)\n");
  (*w)->artifact("inductor_provenance_tracking_node_mappings", "json", id,
                 R"({"preToPost": {"mul": ["mul_1"]}, "postToPre": {"mul_1": ["mul"]},
                     "cppCodeToPost": {"triton_poi_fused_mul_0": ["mul_1"]}, "postToCppCode": {"mul_1": ["triton_poi_fused_mul_0"]}})");
  auto log = (*w)->close();
  ASSERT_TRUE(log.ok());
  std::string out = ::testing::TempDir() + "/remat_report_provenance_page";
  fs::remove_all(out);
  fs::create_directories(out);
  ReportOptions options;
  options.inductor_provenance = true;
  auto r = write_report(*log, out, options);
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  auto page = read_file(out + "/provenance_tracking_-_0_0_0.html");
  ASSERT_TRUE(page.ok());
  size_t at = page->find("<script type=\"application/json\" id=\"line-mappings\">");
  ASSERT_NE(at, std::string::npos);
  size_t start = page->find('>', at) + 1;
  auto mappings =
      nlohmann::json::parse(page->substr(start, page->find("</script>", start) - start));
  EXPECT_EQ(mappings["preToPost"]["3"], nlohmann::json({3}));
  EXPECT_EQ(mappings["postToPre"]["3"], nlohmann::json({3}));
  EXPECT_EQ(mappings["pyCodeToPost"]["4"],
            nlohmann::json({3}));  // the launch in call(), not the definition
  EXPECT_EQ(mappings["postToPyCode"]["3"], nlohmann::json({4}));
  auto index = read_file(out + "/index.html");
  EXPECT_NE(index->find("href=\"provenance_tracking_-_0_0_0.html\""), std::string::npos);
}

TEST(Report, PayloadsOnlyAPageShowsGoToPayloadsFolder) {
  // inductor_output_code becomes an HTML page; its payload is kept as payloads/<md5>.txt and
  // raw.jsonl points there, as tlparse does.
  report_of("tlparse-logs/simple.log", "simple_payloads");
  std::string out = ::testing::TempDir() + "/remat_report_simple_payloads";
  std::ifstream raw(out + "/raw.jsonl");
  std::string code_file;
  for (std::string line; std::getline(raw, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("inductor_output_code")) code_file = j.value("payload_filename", "");
  }
  ASSERT_TRUE(code_file.starts_with("payloads/")) << code_file;
  auto code = read_file(out + "/" + code_file);
  ASSERT_TRUE(code.ok());
  EXPECT_NE(code->find("def call(args):"), std::string::npos);
  EXPECT_EQ(tracelog::md5_hex(*code) + ".txt", code_file.substr(9));
}

/// The report of a log holding one JSON artifact of compile [0/0], in a fresh folder `name`.
Expected<ReportResult> report_of_artifact(const std::string& name, const std::string& artifact,
                                          const std::string& payload, std::string& out) {
  std::string dir = ::testing::TempDir() + "/remat_" + name + "_log";
  fs::remove_all(dir);
  auto writer = tracelog::TraceWriter::create(dir);
  REMAT_TRY(writer);
  tracelog::CompileId id;
  id.frame_id = 0;
  id.frame_compile_id = 0;
  id.attempt = 0;
  (*writer)->artifact(artifact, "json", id, payload);
  auto log = (*writer)->close();
  REMAT_TRY(log);
  out = ::testing::TempDir() + "/remat_report_" + name;
  fs::remove_all(out);
  fs::create_directories(out);
  return write_report(*log, out, ReportOptions{});
}

TEST(Report, KernelStackTracesGetAReadablePage) {
  std::string out;
  auto r = report_of_artifact(
      "provenance", "inductor_provenance_tracking_kernel_stack_traces",
      R"({"triton_poi_fused_mul_0": ["File \"/m.py\", line 3, in f\\n    y = x * 2\\n"]})", out);
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  auto page =
      read_file(out + "/-_0_0_0/inductor_provenance_tracking_kernel_stack_traces_0_readable.html");
  ASSERT_TRUE(page.ok());
  EXPECT_NE(page->find("<h3>triton_poi_fused_mul_0</h3>"), std::string::npos) << *page;
  EXPECT_NE(page->find("<pre>File &quot;/m.py&quot;, line 3, in f\n    y = x * 2</pre>"),
            std::string::npos)
      << *page;
  auto directory = nlohmann::json::parse(*read_file(out + "/compile_directory.json"));
  const auto& artifact = directory["[0/0]"]["artifacts"][0];
  EXPECT_EQ(artifact["url"], "-_0_0_0/inductor_provenance_tracking_kernel_stack_traces_0.json");
  EXPECT_EQ(artifact["readable_url"],
            "-_0_0_0/inductor_provenance_tracking_kernel_stack_traces_0_readable.html");
  EXPECT_EQ(artifact["number"], 1);  // tlparse numbers the page first
}

TEST(Report, APartitionRecordThatIsNoneSaysWhyOnItsPage) {
  std::string out;
  auto r = report_of_artifact(
      "bad_record", "remat_partition",
      R"({"schema": "remat-partition-report/1", "saved_values": [{"bytes": "x"}]})", out);
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  EXPECT_EQ(r->fail_parser, 1u);
  auto page = read_file(out + "/-_0_0_0/remat_partition_0.html");
  ASSERT_TRUE(page.ok());
  EXPECT_NE(page->find("id=\"record-error\""), std::string::npos) << *page;
  EXPECT_NE(page->find(":1 (remat_partition): error: at saved_values[0].bytes: expected an "
                       "integer, got a string"),
            std::string::npos)
      << *page;
  // The JSON itself is still there, as tlparse writes it.
  EXPECT_TRUE(fs::exists(out + "/-_0_0_0/remat_partition_0.json"));
}

TEST(Report, PyTorch213LogMarksEveryValueRematSavedOrRecomputed) {
  // PyTorch 2.13's own log of six compiles partitioned by remat.partition_fn: each compile's joint
  // graph page marks every value remat's record saved and every node it recomputed, with the
  // record's reason.
  ReportResult r = report_of("torch-2.13/compile_models.log", "torch_213");
  std::string out = ::testing::TempDir() + "/remat_report_torch_213";
  EXPECT_EQ(r.compile_ids, 7u);  // and [-/-]: the torch version, logged outside a compile
  EXPECT_EQ(r.partitions.size(), 6u);
  auto directory = nlohmann::json::parse(*read_file(out + "/compile_directory.json"));
  size_t compiles = 0, marked = 0;
  for (const auto& [id, entry] : directory.items()) {
    std::string record_url, joint_page;
    for (const auto& a : entry["artifacts"]) {
      std::string url = a["url"];
      if (url.find("/remat_partition_") != std::string::npos) record_url = url;
      if (url.find("/aot_joint_graph_") != std::string::npos) joint_page = a["readable_url"];
    }
    if (record_url.empty()) continue;
    ++compiles;
    auto record = nlohmann::json::parse(*read_file(out + "/" + record_url));
    auto html = read_file(out + "/" + joint_page);
    ASSERT_TRUE(html.ok()) << id;
    auto page = testing::read_graph_page(*html);
    ASSERT_TRUE(page) << id;
    for (const char* kind : {"saved_values", "recomputed"}) {
      for (const auto& v : record[kind]) {
        std::string name = v["name"];
        const testing::GraphPageChip* chip = page->chip(name);
        ASSERT_TRUE(chip) << id << ": " << name;
        EXPECT_EQ(chip->kind, std::string(kind) == "recomputed" ? "recomputed" : "saved")
            << id << ": " << name;
        EXPECT_EQ(chip->reason, v["reason"].get<std::string>()) << id << ": " << name;
        ++marked;
      }
    }
  }
  EXPECT_EQ(compiles, 6u);
  EXPECT_GT(marked, 100u);
  // The index leads with them.
  auto index = read_file(out + "/index.html");
  ASSERT_TRUE(index.ok());
  EXPECT_LT(index->find("<h2>Partitions</h2>"), index->find("<h2>Stack trie</h2>"));
  EXPECT_EQ(index->find("id=\"no-partitions\""), std::string::npos);
  // One click from the index to each partition's page, with what it saves in a sentence (the
  // records of this log predate the input marks: saved values, not activations).
  EXPECT_NE(index->find("class=\"partition-page\" href=\"-_0_0_0/remat_partition_"),
            std::string::npos);
  EXPECT_NE(index->find("<p class=\"partition-line\">Saves "), std::string::npos);
  // The IR dump list names the page its link opens, with the JSON beside it.
  EXPECT_NE(index->find("remat_partition_3.html\">-_0_0_0/remat_partition_3.html</a>"),
            std::string::npos);
  EXPECT_NE(index->find("remat_partition_3.json\">[json]</a>"), std::string::npos);
  // Every reason on the pages links to the site's glossary.
  EXPECT_NE(index->find("id=\"glossary-link\" href=\"glossary.html\""), std::string::npos);
  auto glossary_page = read_file(out + "/glossary.html");
  ASSERT_TRUE(glossary_page.ok());
  EXPECT_NE(glossary_page->find("<dt id=\"cheapest-cut\">"), std::string::npos);
  auto partition = read_file(out + "/-_0_0_0/remat_partition_3.html");
  ASSERT_TRUE(partition.ok());
  EXPECT_NE(partition->find("<a class=\"why\" href=\"../glossary.html#"), std::string::npos);
}

TEST(Report, JointPagesWaitForTheirOwnCompile) {
  // Two compiles logged interleaved, as threads can: each joint graph's page is written once its
  // compile is finished (compilation_metrics for [0/0], the end of the log for [1/0]), with the
  // marks of its own forward and backward graphs.
  std::string dir = ::testing::TempDir() + "/remat_interleaved_log";
  fs::remove_all(dir);
  auto w = tracelog::TraceWriter::create(dir);
  ASSERT_TRUE(w.ok());
  auto id = [](int64_t frame) {
    tracelog::CompileId c;
    c.frame_id = frame;
    c.frame_compile_id = 0;
    return c;
  };
  const std::string joint =
      "def forward(self, primals_1: \"f32[4]\", tangents_1: \"f32[4]\"):\n"
      "    sin: \"f32[4]\" = torch.ops.aten.sin.default(primals_1)\n"
      "    cos: \"f32[4]\" = torch.ops.aten.cos.default(primals_1)\n"
      "    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, cos)\n"
      "    return (sin, mul)\n";
  const std::string forward =
      "def forward(self, primals_1: \"f32[4]\"):\n"
      "    sin: \"f32[4]\" = torch.ops.aten.sin.default(primals_1)\n"
      "    cos: \"f32[4]\" = torch.ops.aten.cos.default(primals_1)\n"
      "    return (sin, primals_1, cos)\n";
  // Both forwards compute cos; compile 0's backward computes it again from primals_1, compile 1's
  // takes it saved.
  const std::string backward0 =
      "def forward(self, primals_1: \"f32[4]\", tangents_1: \"f32[4]\"):\n"
      "    cos: \"f32[4]\" = torch.ops.aten.cos.default(primals_1)\n"
      "    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, cos)\n    return (mul,)\n";
  const std::string backward1 =
      "def forward(self, cos: \"f32[4]\", tangents_1: \"f32[4]\"):\n"
      "    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, cos)\n    return (mul,)\n";
  (*w)->write("aot_joint_graph", "{}", id(0), joint);
  (*w)->write("aot_joint_graph", "{}", id(1), joint);
  (*w)->write("aot_forward_graph", "{}", id(0), forward);
  (*w)->write("aot_backward_graph", "{}", id(0), backward0);
  (*w)->write("compilation_metrics", "{\"co_name\": \"f\"}", id(0));
  (*w)->write("aot_forward_graph", "{}", id(1), forward);
  (*w)->write("aot_backward_graph", "{}", id(1), backward1);
  auto log = (*w)->close();
  ASSERT_TRUE(log.ok());
  std::string out = ::testing::TempDir() + "/remat_report_interleaved";
  fs::remove_all(out);
  fs::create_directories(out);
  auto r = write_report(*log, out, ReportOptions{});
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  auto page0 = testing::read_graph_page(*read_file(out + "/-_0_0_0/aot_joint_graph_0.html"));
  auto page1 = testing::read_graph_page(*read_file(out + "/-_1_0_0/aot_joint_graph_1.html"));
  ASSERT_TRUE(page0 && page1);
  ASSERT_TRUE(page0->chip("cos") && page0->chip("primals_1") && page1->chip("cos"));
  EXPECT_EQ(page0->chip("cos")->line, 2u);
  EXPECT_EQ(page0->chip("cos")->kind, "recomputed");
  EXPECT_EQ(page0->chip("primals_1")->kind, "saved-input");
  EXPECT_EQ(page1->chip("cos")->kind, "saved");
  ASSERT_EQ(r->partitions.size(), 2u);
  EXPECT_EQ(r->partitions[0].compile_id, "[0/0]");  // in log order, whichever finished first
  EXPECT_EQ(r->partitions[0].recomputed, std::set<std::string>{"cos"});
  EXPECT_EQ(r->partitions[1].saved.count("cos"), 1u);
  // The same joint graph partitioned twice: a page of what changed fate, linked from the index.
  auto index = read_file(out + "/index.html");
  ASSERT_TRUE(index.ok());
  const std::string diff_page = "partition_diff_-_0_0_0_-_1_0_0.html";
  EXPECT_NE(index->find("id=\"partition-diffs\"><li><a href=\"" + diff_page +
                        "\">[0/0] against [1/0]</a>"),
            std::string::npos)
      << *index;
  auto diff = read_file(out + "/" + diff_page);
  ASSERT_TRUE(diff.ok());
  EXPECT_NE(diff->find("<tr><td><code>cos</code></td><td>recomputed</td><td>saved</td>"),
            std::string::npos)
      << *diff;
  EXPECT_NE(diff->find("id=\"diff-totals\""), std::string::npos);
}

TEST(GraphHtml, NodesRegionsAndMarksFromTheText) {
  std::string text =
      "class inner_f(torch.nn.Module):\n"
      "    def forward(self, primals, tangents):\n"
      "        primals_1: \"f32[4, 4][4, 1]cpu\"; primals_2: \"f32[4, 4][4, 1]cpu\"; tangents_1: "
      "\"f32[4, 4][4, 1]cpu\"; \n"
      "        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, "
      "tangents], self._in_spec)\n"
      "        sin: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.sin.default(primals_1)\n"
      "        \n"
      "        # ac_graph_id: 1 - PREFER_RECOMPUTE\n"
      "        mm: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.mm.default(sin, primals_2)\n"
      "        sigmoid_backward: \"f32[4, 4][4, 1]cpu\" = "
      "torch.ops.aten.sigmoid_backward.default(tangents_1, mm)\n"
      "        return pytree.tree_unflatten([mm, sigmoid_backward], self._out_spec)\n";
  std::vector<GraphLine> nodes = graph_lines(text);
  std::vector<std::string> names;
  for (const GraphLine& g : nodes) names.push_back(g.name);
  EXPECT_EQ(names, (std::vector<std::string>{"primals_1", "primals_2", "tangents_1", "sin", "mm",
                                             "sigmoid_backward"}));
  EXPECT_EQ(nodes[4].ac_graph_id, 1);
  EXPECT_EQ(nodes[4].recompute, "PREFER_RECOMPUTE");
  EXPECT_FALSE(nodes[3].ac_graph_id.has_value());
  EXPECT_EQ(nodes[3].bytes, 64u);
  PartitionMarks marks;
  marks.saved["sin"] = 64;
  marks.recomputed.insert("mm");
  marks.why["sin"] = "checkpoint-region input";
  marks.why["mm"] = "tagged PREFER_RECOMPUTE";
  marks.flops["mm"] = 128;
  marks.forward = {"primals_1", "primals_2", "sin", "mm"};
  marks.backward = {"sin", "primals_2", "tangents_1", "mm", "sigmoid_backward"};
  std::string html = graph_html("joint", text, &marks, "joint.txt");
  // The text once, and per line its node, region and chips for the browser to draw
  // (tests/cli/browser_test.cpp draws this page).
  auto page = testing::read_graph_page(html);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->text, text);
  EXPECT_EQ(page->node_of_line.at(7), "mm");
  EXPECT_EQ(page->region_of_line.at(7), 1);
  EXPECT_EQ(page->region_of_line.count(4), 0u);
  EXPECT_EQ(page->region_style.at("1"),
            "background:hsl(67, 75%, 92%);border-left:4px solid hsl(67, 60%, 45%)");
  auto chip = [&](const char* name) {
    const testing::GraphPageChip* c = page->chip(name);
    return c ? std::vector<std::string>{std::to_string(c->line), c->kind, c->bytes, c->reason,
                                        c->cost}
             : std::vector<std::string>{"no chip"};
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(chip("sin"), (V{"4", "saved", "64 B", "checkpoint-region input", ""}));
  EXPECT_EQ(chip("mm"), (V{"7", "recomputed", "64 B", "tagged PREFER_RECOMPUTE", "128 FLOPs"}));
  EXPECT_EQ(chip("sigmoid_backward"), (V{"8", "backward", "64 B", "", ""}));
  EXPECT_EQ(chip("primals_1"), (V{"2", "forward", "64 B", "", ""}));
  EXPECT_EQ(page->nodes_on_line.at(2), 3);  // three inputs on one line: chips name their node
  EXPECT_EQ(chip("tangents_1"), (V{"2", "backward", "64 B", "", ""}));
  // The side panel: each saved and recomputed node, linked to its line, with the reason.
  // Each reason links to what it means on the glossary page.
  EXPECT_NE(html.find("<tr><td><a href=\"#L5\"><code>sin</code></a></td><td class=\"num\">64 "
                      "B</td><td><a class=\"why\" href=\"#region-input\">checkpoint-region "
                      "input</a></td></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><td><a href=\"#L8\"><code>mm</code></a></td><td class=\"num\">128 "
                      "FLOPs</td><td><a class=\"why\" href=\"#tagged\">tagged "
                      "PREFER_RECOMPUTE</a></td></tr>"),
            std::string::npos);
  EXPECT_EQ(graph_html("joint", text, nullptr, "joint.txt").find("why-panel"),
            std::string::npos);  // no partition, no panel
  // Nodes as torch.fx (and remat info) counts them: the output too.
  EXPECT_NE(html.find("7 nodes: 3 inputs, 3 ops, the output"), std::string::npos);
}

TEST(GraphHtml, ActivationsFirstInputsFoldedForwardOpsRunInTheBackwardNamed) {
  std::string text =
      "def forward(self, primals_1: \"f32[4]\", primals_2: \"f32[8]\", tangents_1: \"f32[4]\"):\n"
      "    sin: \"f32[4]\" = torch.ops.aten.sin.default(primals_1)\n"
      "    cos: \"f32[4]\" = torch.ops.aten.cos.default(primals_1)\n"
      "    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, cos)\n"
      "    return (sin, mul)\n";
  std::vector<GraphLine> nodes = graph_lines(text);
  EXPECT_EQ(joint_forward_nodes(text, nodes), (std::unordered_set<std::string>{"sin", "cos"}));
  PartitionMarks marks;
  marks.saved = {{"primals_1", 16}, {"primals_2", 32}};
  marks.inputs = {"primals_1", "primals_2"};
  marks.forward = {"primals_1", "primals_2", "sin"};
  marks.backward = {"primals_1", "tangents_1", "cos", "mul"};
  marks.joint_forward = joint_forward_nodes(text, nodes);
  std::string html = graph_html("joint", text, &marks, "");
  // cos is a forward op the partition runs in the backward only; mul is a backward op.
  auto page = testing::read_graph_page(html);
  ASSERT_TRUE(page);
  ASSERT_TRUE(page->chip("cos"));
  EXPECT_EQ(page->chip("cos")->kind, "moved");
  ASSERT_TRUE(page->chip("mul"));
  EXPECT_EQ(page->chip("mul")->kind, "backward");
  ASSERT_TRUE(page->chip("primals_2"));
  EXPECT_EQ(page->chip("primals_2")->kind, "saved-input");
  // The panel leads with the activations (none here) and folds the inputs into one line.
  EXPECT_NE(html.find("<h2>Saved activations (0, 0 B)</h2>"), std::string::npos);
  EXPECT_NE(html.find("<details id=\"why-saved-inputs\"><summary>and 2 inputs the backward reads "
                      "anyway (48 B)</summary>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("saved</span> 0 activations (0 B) and 2 inputs (48 B)"), std::string::npos);
  // No tag anywhere in a joint graph: the page says why there are no regions.
  EXPECT_NE(html.find("id=\"no-regions\""), std::string::npos);
  EXPECT_EQ(graph_html("forward", "def forward(self, x):\n    return (x,)\n", nullptr, "")
                .find("no-regions"),
            std::string::npos);
}

}  // namespace
}  // namespace remat::report

namespace remat::report {
namespace {

std::string golden_text(const std::string& name) {
  std::ifstream in(testing::tests_dir() + "/golden/print/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(GraphHtml, EveryTagPlacementColorsEveryNodeOfTheRegion) {
  // The seed's tag lines, and PyTorch's Nov-2025 and 2026 tags inside the group comment (which
  // hold for every statement of the group): the same regions and policies, node for node.
  auto tags = [](const std::string& file) {
    std::map<std::string, std::pair<std::optional<int64_t>, std::string>> out;
    for (const GraphLine& g : graph_lines(golden_text(file)))
      out[g.name] = {g.ac_graph_id, g.recompute};
    return out;
  };
  auto seed = tags("seed_joint_tlparse.txt");
  size_t tagged = 0;
  for (const auto& [name, tag] : seed) tagged += tag.first.has_value();
  EXPECT_EQ(tagged, 3u);  // mm, sigmoid and the detach of the region's output
  EXPECT_EQ(tags("seed_joint_tlparse_inline-2025.txt"), seed);
  EXPECT_EQ(tags("seed_joint_tlparse_inline-2026.txt"), seed);
}

}  // namespace
}  // namespace remat::report

namespace remat::report {
namespace {

TEST(GraphHtml, MarksFromPyTorchsOwnGraphsAreItsPartition) {
  // PyTorch 1.13's forward and backward texts of every captured model, for both of its
  // partitioners: the backward's non-tangent inputs are exactly the values it saved.
  size_t checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::data_path("torch-1.13"))) {
    std::string file = e.path().filename().string();
    if (!file.ends_with("_partition.json")) continue;
    std::string model = file.substr(0, file.size() - std::string("_partition.json").size());
    auto summary = nlohmann::json::parse(std::ifstream(e.path()));
    for (const auto& [strategy, prefix] :
         {std::pair{"default", "default"}, std::pair{"min_cut", "mincut"}}) {
      SCOPED_TRACE(model + " " + strategy);
      auto read = [&](const std::string& which) {
        std::ifstream in(
            testing::data_path("torch-1.13/" + model + "_" + prefix + "_" + which + ".txt"));
        std::stringstream ss;
        ss << in.rdbuf();
        return graph_lines(ss.str());
      };
      PartitionMarks marks = marks_from_graphs(read("fw"), read("bw"));
      std::set<std::string> ours, theirs;
      for (const auto& [name, bytes] : marks.saved) ours.insert(name);
      for (const auto& name : summary[strategy]["saved_values"])
        theirs.insert(name.get<std::string>());
      EXPECT_EQ(ours, theirs);
      std::set<std::string> recomputed(summary[strategy]["recomputed_in_bw"].begin(),
                                       summary[strategy]["recomputed_in_bw"].end());
      EXPECT_EQ(marks.recomputed, recomputed);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 14u);
}

}  // namespace
}  // namespace remat::report

namespace remat::report {
namespace {

TEST(GraphHtml, TagLinesOfInputsAreExplainedAndColorNothing) {
  // A backward graph as PyTorch prints it: the saved inputs' tags after the signature.
  std::string text = golden_text("backward_with_input_tag.txt");
  for (const GraphLine& g : graph_lines(text)) EXPECT_FALSE(g.ac_graph_id.has_value()) << g.name;
  std::string html = graph_html("backward", text, nullptr, "bw.txt");
  EXPECT_NE(html.find("id=\"input-tags\">The tag lines right after the signature (line 7)"),
            std::string::npos)
      << html;
  auto page = testing::read_graph_page(html);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->input_tags, std::set<size_t>{6});
  EXPECT_FALSE(page->has_chips);
  EXPECT_EQ(graph_html("joint", golden_text("seed_joint_tlparse.txt"), nullptr, "j.txt")
                .find("input-tags"),
            std::string::npos);
}

}  // namespace
}  // namespace remat::report
