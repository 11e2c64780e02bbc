// The what-if table of a logged joint graph: with checkpoint regions, the optimum is the one a
// policy reproduces and each row has the `remat policy` command that writes it; without them no
// policy reaches the graph, and the table says so instead of offering a command that fails.
#include "remat/driver/what_if.h"

#include <gtest/gtest.h>

#include <string>

#include "remat/records/partition_record.h"

namespace remat::driver {
namespace {

constexpr std::string_view kTagged = R"(class inner_f(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[4, 8][8, 1]cpu"  # PlainAOTInput(idx=0)
        primals_2: "f32[8, 8][8, 1]cpu"  # PlainAOTInput(idx=1)
        tangents_1: "f32[4, 8][8, 1]cpu"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)

        # ac_graph_id: 1 - PREFER_RECOMPUTE
        mm: "f32[4, 8][8, 1]cpu" = torch.ops.aten.mm.default(primals_1, primals_2)
        relu: "f32[4, 8][8, 1]cpu" = torch.ops.aten.relu.default(mm);  mm = None
        sin: "f32[4, 8][8, 1]cpu" = torch.ops.aten.sin.default(relu)
        cos: "f32[4, 8][8, 1]cpu" = torch.ops.aten.cos.default(relu)
        mul: "f32[4, 8][8, 1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, cos);  tangents_1 = cos = None
        threshold_backward: "f32[4, 8][8, 1]cpu" = torch.ops.aten.threshold_backward.default(mul, relu, 0);  mul = relu = None
        t: "f32[8, 4][1, 8]cpu" = torch.ops.aten.t.default(primals_1);  primals_1 = None
        mm_1: "f32[8, 8][8, 1]cpu" = torch.ops.aten.mm.default(t, threshold_backward);  t = threshold_backward = None
        return pytree.tree_unflatten([
            sin,  # PlainAOTOutput(idx=0)
            None,  # None
            mm_1,  # GradAOTOutput(grad_of=PlainAOTInput(idx=1))
        ], self._out_spec)
)";

std::string untagged() {
  std::string text(kTagged);
  size_t tag = text.find("        # ac_graph_id");
  return text.erase(tag, text.find('\n', tag) + 1 - tag);
}

TEST(WhatIf, WithRegionsEachRowHasThePolicyThatWritesIt) {
  report::WhatIfTable table = what_if({kTagged, "", 0}, 5);
  ASSERT_TRUE(table.within_regions);
  ASSERT_EQ(table.rows.size(), 8u);  // the knapsack and the optimum at four budgets
  for (const report::WhatIfRow& row : table.rows) {
    ASSERT_TRUE(row.partition) << row.strategy << " " << row.budget << ": " << row.note;
    EXPECT_FALSE(row.policy_strategy.empty()) << row.strategy;
  }
  records::PartitionRecord run = table.rows.front().partition.value();
  std::string html = report::what_if_html(table, run, "log.txt", "[0/0]");
  EXPECT_NE(html.find("decides inside the checkpoint regions only"), std::string::npos);
  EXPECT_NE(html.find("remat policy log.txt --compile 0/0 --strategy optimal --budget 0.5"),
            std::string::npos);
}

TEST(WhatIf, WithoutRegionsNoRowOffersAPolicy) {
  std::string text = untagged();
  ASSERT_EQ(text.find("ac_graph_id"), std::string::npos);
  report::WhatIfTable table = what_if({text, "", 0}, 5);
  ASSERT_FALSE(table.within_regions);
  ASSERT_EQ(table.rows.size(), 8u);
  for (const report::WhatIfRow& row : table.rows) {
    ASSERT_TRUE(row.partition) << row.strategy << " " << row.budget << ": " << row.note;
    EXPECT_TRUE(row.policy_strategy.empty()) << row.strategy;
  }
  records::PartitionRecord run = table.rows.front().partition.value();
  std::string html = report::what_if_html(table, run, "log.txt", "[0/0]");
  EXPECT_EQ(html.find("remat policy"), std::string::npos);
  EXPECT_NE(html.find("none (no checkpoint region)"), std::string::npos);
  EXPECT_NE(html.find("no checkpoint region, so no policy reaches it"), std::string::npos);
}

}  // namespace
}  // namespace remat::driver
