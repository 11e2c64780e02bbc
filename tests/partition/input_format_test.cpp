// The same joint graph gives the same partition and the same report whether it was read from
// fxgraph-json or from its readable text, on every zoo model. The one thing the text cannot carry
// is the partitioner tags (torch.fx never prints them): the default partition then finds the
// forward region by dataflow, as PyTorch did before tags, and may save a value where the tagged
// graph saves an alias of it (`_softmax` for its `detach`): the same storage, the same bytes.
#include <gtest/gtest.h>

#include <set>

#include "remat/autodiff/joint_graph.h"
#include "remat/io/graph_json.h"
#include "remat/models/model_zoo.h"
#include "remat/partition/partition_joint.h"
#include "remat/print/printer.h"
#include "remat/print/readable_parser.h"

namespace remat::partition {
namespace {

// The storages a partition keeps for the backward: saved values up to aliasing.
std::set<std::string> saved_storages(const GraphModule& joint, const ForwardBackward& graphs) {
  std::set<std::string> out;
  for (const std::string& name : graphs.saved_values)
    out.insert(storage_root(*joint.graph().find(name)).name());
  return out;
}

TEST(InputFormat, JsonAndTextGiveTheSameReportOnEveryZooModel) {
  int compared = 0;
  for (const models::ModelInfo& info : models::all_models()) {
    for (const char* plan : {"none", "each-layer"}) {
      models::ModelOptions o;
      o.layers = 2;
      o.checkpoint = *models::CheckpointPlan::parse(plan);
      auto forward = info.trace(o);
      ASSERT_TRUE(forward.ok()) << info.name;
      auto joint = autodiff::build_joint_graph(*forward);
      ASSERT_TRUE(joint.ok()) << info.name;
      auto from_json = read_graph_json(write_graph_json(*joint), "joint.json");
      ASSERT_TRUE(from_json.ok()) << format_all(from_json.errors());
      auto from_text =
          parse_readable(print_readable(*joint, PrintOptions::tlparse()).text, "joint.txt");
      ASSERT_TRUE(from_text.ok()) << format_all(from_text.errors());
      for (Strategy strategy : {Strategy::MinCut, Strategy::Default}) {
        SCOPED_TRACE(std::string(info.name) + " " + plan +
                     (strategy == Strategy::MinCut ? " min-cut" : " default"));
        auto a = partition_joint(*from_json, strategy);
        auto b = partition_joint(*from_text, strategy);
        ASSERT_TRUE(a.ok() && b.ok());
        if (strategy == Strategy::MinCut) {
          EXPECT_EQ(a->graphs.saved_values, b->graphs.saved_values);
          EXPECT_EQ(a->report.json(), b->report.json());
        } else {
          EXPECT_EQ(saved_storages(*from_json, a->graphs), saved_storages(*from_text, b->graphs));
          // saved_bytes_total counts an alias saved beside its base twice; the storage kept does
          // not.
          EXPECT_EQ(a->report.activation_bytes, b->report.activation_bytes);
          EXPECT_EQ(a->report.recompute_flops, b->report.recompute_flops);
          EXPECT_EQ(a->report.recomputed.size(), b->report.recomputed.size());
        }
        EXPECT_FALSE(a->report.saved_values.empty());
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 20);
}

}  // namespace
}  // namespace remat::partition
