// remat report --all-ranks-html: a real 4-rank run, and two ranks written by remat's trace writer
// that differ in every way tlparse checks.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "remat/report/multi_rank.h"
#include "remat/support/file_io.h"
#include "remat/tracelog/trace_writer.h"
#include "testing/golden.h"

namespace remat::report {
namespace {

namespace fs = std::filesystem;

TEST(MultiRank, RealFourRankRunDivergesInCompileIdsAndCache) {
  // Ranks 0 and 2 failed their first compile; 1 compiled 15 frames (10 hits, 5 misses of each
  // cache), 3 compiled 7 (all hits).
  std::string out = ::testing::TempDir() + "/remat_multi_rank_real";
  fs::remove_all(out);
  auto r = write_multi_rank_report(testing::data_path("tlparse-logs/multi_rank_logs"), out, {},
                                   false, true);
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  ASSERT_EQ(r->ranks.size(), 4u);
  EXPECT_TRUE(r->compile_id_divergence);
  EXPECT_TRUE(r->execution_groups.empty());  // this run logged no graph executions
  ASSERT_EQ(r->cache_groups.size(), 3u);
  EXPECT_EQ(r->cache_groups[0].ranks, (std::vector<int>{0, 2}));
  EXPECT_EQ(r->cache_groups[1].ranks, (std::vector<int>{1}));
  EXPECT_EQ(r->cache_groups[2].ranks, (std::vector<int>{3}));
  EXPECT_TRUE(r->diverged());
  for (int rank = 0; rank < 4; ++rank)
    EXPECT_TRUE(fs::exists(out + "/rank_" + std::to_string(rank) + "/index.html")) << rank;
  auto events = nlohmann::json::parse(*read_file(out + "/chromium_events.json"));
  std::set<int> pids;
  for (const auto& e : events) pids.insert(e["pid"].get<int>());
  EXPECT_EQ(pids, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(events.size(), r->chromium_events);
  auto index = read_file(out + "/index.html");
  ASSERT_TRUE(index.ok());
  EXPECT_NE(index->find("id=\"desync-warning\""), std::string::npos);
  EXPECT_NE(index->find("id=\"divergence-compile-ids\""), std::string::npos);
  EXPECT_NE(index->find("href=\"rank_3/index.html\""), std::string::npos);
  // Writing it again without --overwrite is refused; nothing is half-written.
  EXPECT_FALSE(write_multi_rank_report(testing::data_path("tlparse-logs/multi_rank_logs"), out, {},
                                       false, false)
                   .ok());
}

/// One rank's log of one compile: its partition, collective schedule, runtime estimate and code.
std::string write_rank(const std::string& dir, int rank, const std::string& saved,
                       const std::string& schedule, double runtime_ns, const std::string& code,
                       const std::vector<std::string>& executions = {}) {
  auto w = tracelog::TraceWriter::create(dir, rank);
  EXPECT_TRUE(w.ok());
  tracelog::CompileId id{std::nullopt, 0, 0, 0};
  (*w)->artifact("remat_partition", "json", id,
                 R"({"schema": "remat-partition-report/1", "saved_values": [)" + saved +
                     R"(], "recomputed": [{"name": "sin", "flops": 16}]})");
  (*w)->artifact("inductor_collective_schedule", "json", id, schedule);
  (*w)->artifact(
      "inductor_runtime_and_tensor_meta", "json", id,
      R"({"ops": [{"name": "mm", "estimated_runtime_ns": )" + std::to_string(runtime_ns) + "}]}");
  (*w)->write("inductor_output_code", R"({"filename": "/tmp/k.py"})", id, code);
  for (const std::string& graph : executions)
    (*w)->write("artifact", R"({"name": "inductor_graph_execution", "encoding": "json"})",
                std::nullopt,
                R"({"graph": ")" + graph + "\"}");  // at run time: no compile id
  auto path = (*w)->close();
  EXPECT_TRUE(path.ok());
  return *path;
}

TEST(MultiRank, TwoRanksThatDifferInEverythingTlparseChecks) {
  std::string logs = ::testing::TempDir() + "/remat_multi_rank_logs";
  fs::remove_all(logs);
  std::string code =
      "def call(args):\n    torch.ops._c10d_functional.all_reduce_.default(buf0, 'sum', '0')\n";
  std::string log0 = write_rank(
      logs, 0, R"({"name": "mm", "bytes": 64})",
      R"(["torch.ops._c10d_functional.all_reduce_.default", "torch.ops._c10d_functional.all_gather_into_tensor.default"])",
      2e6, code, {"graph_0", "graph_1", "graph_0"});
  write_rank(logs, 1, R"({"name": "mm", "bytes": 64}, {"name": "sin", "bytes": 64})",
             R"(["torch.ops._c10d_functional.all_reduce_.default"])", 3e6,
             code + "    torch.ops._c10d_functional.wait_tensor.default(buf0)\n",
             {"graph_0", "graph_0", "graph_1"});
  EXPECT_TRUE(fs::path(log0).filename().string().starts_with("dedicated_log_torch_trace_rank_0_"));
  std::string out = ::testing::TempDir() + "/remat_multi_rank_synthetic";
  fs::remove_all(out);
  auto r = write_multi_rank_report(logs, out, {}, false, true);
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  EXPECT_FALSE(r->compile_id_divergence);
  EXPECT_EQ(r->cache_groups.size(), 1u);
  EXPECT_EQ(r->collective_groups.size(), 2u);
  EXPECT_EQ(r->tensor_meta_groups.size(), 2u);
  ASSERT_EQ(r->runtime_deltas.size(), 1u);
  EXPECT_EQ(r->runtime_deltas[0].fastest_rank, 0);
  EXPECT_DOUBLE_EQ(r->runtime_deltas[0].fastest_ms, 2.0);
  EXPECT_EQ(r->runtime_deltas[0].slowest_rank, 1);
  EXPECT_DOUBLE_EQ(r->runtime_deltas[0].slowest_ms, 3.0);
  // Rank 0 planned an all_gather its code never calls; rank 1 waits on its all_reduce.
  EXPECT_EQ(r->collectives_parity_problems, 1u);
  auto parity = nlohmann::json::parse(*read_file(out + "/rank_0/collectives_parity.json"));
  ASSERT_EQ(parity["graphs"].size(), 1u);
  EXPECT_EQ(parity["graphs"][0]["offset"], 1);
  EXPECT_EQ(parity["graphs"][0]["missing_waits"], 1);
  EXPECT_EQ(parity["graphs"][0]["compile_id"], "[0/0]");
  EXPECT_TRUE(fs::exists(out + "/collective_schedules.json"));
  EXPECT_TRUE(fs::exists(out + "/runtime_estimations.json"));
  auto trace = nlohmann::json::parse(*read_file(out + "/chromium_trace_with_runtime.json"));
  bool mm = false;
  for (const auto& e : trace) mm = mm || (e["name"] == "mm" && e["dur"] == 3000 && e["pid"] == 1);
  EXPECT_TRUE(mm);
  // remat's addition: rank 1 saved sin too.
  auto index = read_file(out + "/index.html");
  ASSERT_TRUE(index.ok());
  EXPECT_NE(index->find("id=\"rank-partitions\""), std::string::npos);
  EXPECT_NE(index->find("[0/0]</code> (ranks differ)"), std::string::npos) << *index;
  EXPECT_NE(index->find("2 saved (128 B), 1 recomputed"), std::string::npos) << *index;
  EXPECT_NE(index->find("id=\"divergence-collectives\""), std::string::npos);
  // Rank 1 ran graph_0 twice before graph_1: the order differs from the second execution on.
  ASSERT_EQ(r->execution_groups.size(), 2u);
  EXPECT_EQ(r->execution_divergence_at, 1u);
  EXPECT_EQ(r->execution_groups[0].sequence, "3 executions; from #2: graph_1 graph_0");
  EXPECT_NE(index->find("id=\"divergence-execution-order\""), std::string::npos);
  EXPECT_NE(index->find("first at execution 2"), std::string::npos) << *index;
  EXPECT_NE(index->find("Their collective schedules differ too"), std::string::npos);
}

TEST(MultiRank, AFolderWithoutRankLogsIsAnError) {
  std::string dir = ::testing::TempDir() + "/remat_multi_rank_none";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto logs = find_rank_logs(dir);
  ASSERT_FALSE(logs.ok());
  EXPECT_NE(format_all(logs.errors()).find("no per-rank logs"), std::string::npos);
}

}  // namespace
}  // namespace remat::report
