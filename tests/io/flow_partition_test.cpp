#include <gtest/gtest.h>

#include <cmath>

#include "remat/io/flow_network.h"
#include "remat/io/fxgraph_file.h"
#include "remat/io/partition_summary.h"
#include "remat/support/file_io.h"
#include "testing/golden.h"

namespace remat {
namespace {

std::string sample(const std::string& name) {
  Expected<std::string> text = read_file(testing::data_path("torch-1.13/" + name));
  EXPECT_TRUE(text.ok());
  return text ? *text : std::string();
}

TEST(FlowJson, SamplesReadAndRoundTrip) {
  for (const char* name :
       {"ckpt_sin_mm_sigmoid_mincut_flow.json", "mlp_relu_mincut_flow.json",
        "ckpt_sin_mm_sigmoid_mincut_inductor_flow.json", "mlp_relu_mincut_inductor_flow.json"}) {
    SCOPED_TRACE(name);
    Expected<FlowNetwork> f = read_flow_json(sample(name), name);
    ASSERT_TRUE(f.ok()) << format_all(f.errors());
    std::string w1 = write_flow_json(*f);
    Expected<FlowNetwork> back = read_flow_json(w1, name);
    ASSERT_TRUE(back.ok()) << format_all(back.errors());
    EXPECT_TRUE(*f == *back);
    EXPECT_EQ(write_flow_json(*back), w1);
  }
}

TEST(FlowJson, SeedNetworkContents) {
  Expected<FlowNetwork> f = read_flow_json(sample("ckpt_sin_mm_sigmoid_mincut_flow.json"), "flow");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->nodes.size(), 32U);
  EXPECT_EQ(f->edges.size(), 36U);
  EXPECT_EQ(f->cut_value, 210);
  EXPECT_TRUE(std::isinf(f->edges[0].capacity));
  EXPECT_EQ(f->edges[3].capacity, 70);
  ASSERT_EQ(f->cut_edges.size(), 3U);
  EXPECT_EQ(f->cut_edges[0].first, "detach_4_in");
  ASSERT_TRUE(f->source_side);
  EXPECT_EQ(f->source_side->size(), 17U);
}

TEST(PartitionJson, SamplesReadAndRoundTrip) {
  for (const char* name : {"ckpt_sin_mm_sigmoid_partition.json", "mlp_relu_partition.json"}) {
    SCOPED_TRACE(name);
    Expected<PartitionSummary> p = read_partition_json(sample(name), name);
    ASSERT_TRUE(p.ok()) << format_all(p.errors());
    ASSERT_EQ(p->strategies.size(), 3U);
    std::string w1 = write_partition_json(*p);
    Expected<PartitionSummary> back = read_partition_json(w1, name);
    ASSERT_TRUE(back.ok()) << format_all(back.errors());
    EXPECT_TRUE(*p == *back);
    EXPECT_EQ(write_partition_json(*back), w1);
  }
  Expected<PartitionSummary> p =
      read_partition_json(sample("ckpt_sin_mm_sigmoid_partition.json"), "p");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->strategies[0].strategy, "min_cut");
  EXPECT_EQ(p->strategies[0].saved_values,
            (std::vector<std::string>{"primals_1", "detach_4", "t_1"}));
  EXPECT_EQ(p->strategies[0].saved_bytes_total, 192);
  EXPECT_EQ(p->strategies[1].recomputed_in_bw.size(), 0U);
}

TEST(FxgraphFile, DispatchesOnSchema) {
  Expected<FxgraphDocument> g = read_fxgraph(sample("mlp_relu_joint.json"), "g");
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(std::holds_alternative<GraphModule>(*g));
  Expected<FxgraphDocument> f = read_fxgraph(sample("mlp_relu_mincut_flow.json"), "f");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(std::holds_alternative<FlowNetwork>(*f));
  Expected<FxgraphDocument> p = read_fxgraph(sample("mlp_relu_partition.json"), "p");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(std::holds_alternative<PartitionSummary>(*p));
}

TEST(FxgraphFile, SchemaTagFirstOrAnywhere) {
  // First key (every file remat writes): read from the opening bytes, the rest unparsed.
  EXPECT_EQ(*read_json_schema(" {\n \"schema\" : \"fxgraph-json/1#flow\", \"nodes\": [", "a"),
            "fxgraph-json/1#flow");
  // Anywhere else, escaped, or absent: the document is parsed, and must be JSON.
  EXPECT_EQ(*read_json_schema(R"({"nodes": [], "schema": "fxgraph-json/1"})", "b"),
            "fxgraph-json/1");
  EXPECT_EQ(*read_json_schema(R"({"schema": "fxgraph-json\/1"})", "c"), "fxgraph-json/1");
  EXPECT_EQ(*read_json_schema(R"({"nodes": []})", "d"), "");
  Expected<std::string> broken =
      read_json_schema(R"({"nodes": [}, "schema": "fxgraph-json/1"})", "e.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.errors()[0].format().find("e.json:1:"), std::string::npos)
      << broken.errors()[0].format();
  // A tag read from the opening bytes does not excuse what follows it.
  Expected<FxgraphDocument> tail =
      read_fxgraph("{\"schema\": \"fxgraph-json/1\", \"nodes\": [}", "f.json");
  ASSERT_FALSE(tail.ok());
  EXPECT_NE(tail.errors()[0].format().find("f.json:1:"), std::string::npos)
      << tail.errors()[0].format();
}

}  // namespace
}  // namespace remat
