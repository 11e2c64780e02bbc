// remat's partitions of PyTorch 1.13's joint graphs beside PyTorch 1.13's own (the
// `<m>_partition.json` summaries). docs/partitioner.md explains each difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "remat/io/flow_network.h"
#include "remat/io/graph_json.h"
#include "remat/io/partition_summary.h"
#include "remat/partition/default_partition.h"
#include "remat/partition/min_cut_partition.h"
#include "remat/partition/validity.h"
#include "remat/support/file_io.h"
#include "testing/golden.h"

namespace remat::partition {
namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

TEST(AgainstPyTorch113, SavedBytesBesidePyTorchs) {
  struct Expect {
    const char* model;
    const char* strategy;
    int64_t remat_bytes;  // pinned: a change here must come with an update of docs/partitioner.md
  };
  const Expect expectations[] = {
      {"ckpt_sin_mm_sigmoid", "min_cut", 256},  // PyTorch 1.13: 192 (t is a view op on main)
      {"ckpt_sin_mm_sigmoid", "default", 256},  // PyTorch 1.13: 256
      {"mlp_relu", "min_cut", 7168},            // PyTorch 1.13: 7168, the same values
      {"mlp_relu", "default", 7168},            // PyTorch 1.13: 7168
      // Captured by tools/capture_torch_joints.py. Defaults: DefaultPartitionSavesWhatPyTorchSaves.
      {"layernorm_mlp", "min_cut",
       3104},  // PyTorch 1.13: 2592 (main bans gelu: materialized in the backward)
      {"batchnorm_conv", "min_cut", 6496},  // PyTorch 1.13: 6496
      {"cross_entropy", "min_cut",
       1844},  // PyTorch 1.13: 2484 (saves tanh once, recomputes the view of it)
      {"norm_stack", "min_cut", 1124},  // PyTorch 1.13: 1124
  };
  for (const Expect& e : expectations) {
    auto joint =
        load_graph_json(testing::data_path(std::string("torch-1.13/") + e.model + "_joint.json"));
    ASSERT_TRUE(joint.ok()) << e.model;
    auto text =
        read_file(testing::data_path(std::string("torch-1.13/") + e.model + "_partition.json"));
    ASSERT_TRUE(text.ok());
    auto summary = read_partition_json(*text, e.model);
    ASSERT_TRUE(summary.ok()) << format_all(summary.errors());
    const StrategySummary* theirs = nullptr;
    for (const StrategySummary& s : summary->strategies) {
      if (s.strategy == e.strategy) theirs = &s;
    }
    ASSERT_NE(theirs, nullptr) << e.model << " " << e.strategy;
    PartitionReport ours;
    std::vector<std::string> saved;
    if (std::string_view(e.strategy) == "min_cut") {
      auto p = min_cut_partition(*joint);
      ASSERT_TRUE(p.ok()) << format_all(p.errors());
      ours = p->report;
      saved = p->graphs.saved_values;
    } else {
      auto p = default_partition(*joint);
      ASSERT_TRUE(p.ok()) << format_all(p.errors());
      ours = p->report;
      saved = p->graphs.saved_values;
    }
    std::printf("%-20s %-8s remat %6lld bytes (%s) | PyTorch 1.13 %6lld bytes (%s)\n", e.model,
                e.strategy, static_cast<long long>(ours.saved_bytes_total), joined(saved).c_str(),
                static_cast<long long>(theirs->saved_bytes_total.value_or(-1)),
                joined(theirs->saved_values).c_str());
    EXPECT_EQ(ours.saved_bytes_total, e.remat_bytes) << e.model << " " << e.strategy;
  }
}

}  // namespace
}  // namespace remat::partition

namespace remat::partition {
namespace {

// Every 1.13 model in tests/data: the default partition saves what PyTorch 1.13's saves, byte for
// byte. Untagged graphs find the forward region by dataflow, as 1.13 did; layer norm, batch norm
// (train) and cross-entropy save the tuple elements the backward reads (mean, rstd, save_mean,
// save_invstd, total_weight).
TEST(AgainstPyTorch113, DefaultPartitionSavesWhatPyTorchSaves) {
  size_t models = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::data_path("torch-1.13"))) {
    std::string file = e.path().filename().string();
    if (!file.ends_with("_partition.json")) continue;
    std::string model = file.substr(0, file.size() - std::string("_partition.json").size());
    SCOPED_TRACE(model);
    auto joint = load_graph_json(testing::data_path("torch-1.13/" + model + "_joint.json"));
    ASSERT_TRUE(joint.ok()) << format_all(joint.errors());
    auto text = read_file(e.path().string());
    ASSERT_TRUE(text.ok());
    auto summary = read_partition_json(*text, file);
    ASSERT_TRUE(summary.ok()) << format_all(summary.errors());
    const StrategySummary* theirs = nullptr;
    for (const StrategySummary& s : summary->strategies) {
      if (s.strategy == "default") theirs = &s;
    }
    ASSERT_NE(theirs, nullptr);
    auto ours = default_partition(*joint);
    ASSERT_TRUE(ours.ok()) << format_all(ours.errors());
    std::vector<std::string> a = ours->graphs.saved_values, b = theirs->saved_values;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());  // 1.13 saves in set order
    EXPECT_EQ(joined(a), joined(b));
    EXPECT_EQ(ours->report.saved_bytes_total, theirs->saved_bytes_total.value_or(-1));
    EXPECT_TRUE(ours->report.recomputed.empty()) << ours->report.text();
    ++models;
  }
  EXPECT_EQ(models, 7U);
}

TEST(AgainstPyTorch113, InPlaceDropoutIsNeverRunTwice) {
  // 1.13 traces dropout as `bernoulli_` on an `empty_like`: an op outside remat's registry that
  // draws random numbers in place. Running it again in the backward would draw a new mask.
  auto joint = load_graph_json(testing::data_path("torch-1.13/dropout_mlp_joint.json"));
  ASSERT_TRUE(joint.ok()) << format_all(joint.errors());
  auto runs_bernoulli = [](const GraphModule& g) {
    for (const Node* n : g.graph().nodes())
      if (n->target().view().starts_with("aten.bernoulli_")) return true;
    return false;
  };
  auto d = default_partition(*joint);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(runs_bernoulli(d->graphs.backward));
  EXPECT_TRUE(check_validity(*joint, d->graphs, d->report).empty());
  for (double budget : {1.0, 0.5, 0.0}) {
    SCOPED_TRACE(budget);
    MinCutConfig config;
    config.memory_budget = budget;
    auto p = min_cut_partition(*joint, config);
    ASSERT_TRUE(p.ok()) << format_all(p.errors());
    EXPECT_FALSE(runs_bernoulli(p->graphs.backward)) << p->report.text();
    const auto& saved = p->graphs.saved_values;
    EXPECT_NE(std::find(saved.begin(), saved.end(), "bernoulli_"),
              saved.end());  // the mask, as 1.13 saves it
    EXPECT_TRUE(check_validity(*joint, p->graphs, p->report).empty())
        << joined(check_validity(*joint, p->graphs, p->report));
  }
  // Saving the primals alone makes the backward draw again: the check says so.
  std::vector<const Node*> primals;
  for (const Node* n : joint->graph().nodes())
    if (n->op() == OpKind::Placeholder && n->name().starts_with("primals")) primals.push_back(n);
  auto bad = extract_forward_backward(*joint, primals, {});
  ASSERT_TRUE(bad.ok()) << format_all(bad.errors());
  EXPECT_TRUE(runs_bernoulli(bad->backward));
  std::vector<std::string> violations = check_validity(*joint, *bad, d->report);
  EXPECT_NE(joined(violations)
                .find("bernoulli_ is random or mutates its input (aten.bernoulli_.float) but the "
                      "backward runs it again"),
            std::string::npos)
      << joined(violations);
}

TEST(AgainstPyTorch113, FlowNetworksHaveItsVerticesInItsOrder) {
  // PyTorch adds vertices as its add_edge calls name them; the network remat builds from the
  // same joint graph lists the same vertices in the same order (the edges differ only by the
  // bans main added since 1.13; docs/partitioner.md).
  for (const char* model : {"ckpt_sin_mm_sigmoid", "mlp_relu"}) {
    auto joint =
        load_graph_json(testing::data_path(std::string("torch-1.13/") + model + "_joint.json"));
    ASSERT_TRUE(joint.ok()) << model;
    auto p = min_cut_partition(*joint);
    ASSERT_TRUE(p.ok()) << model;
    auto text =
        read_file(testing::data_path(std::string("torch-1.13/") + model + "_mincut_flow.json"));
    ASSERT_TRUE(text.ok()) << model;
    auto theirs = read_flow_json(*text, model);
    ASSERT_TRUE(theirs.ok()) << model;
    EXPECT_EQ(p->network.names(), theirs->nodes) << model;
  }
}

}  // namespace
}  // namespace remat::partition
