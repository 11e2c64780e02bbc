// The nodes a graph text defines, from each signature form torch.fx prints.
#include <gtest/gtest.h>

#include "remat/fxtext/graph_statements.h"

namespace remat::fxtext {
namespace {

std::vector<std::string> names(const std::vector<GraphLine>& lines) {
  std::vector<std::string> out;
  for (const GraphLine& g : lines) out.push_back(g.name + (g.input ? "(in)" : ""));
  return out;
}

TEST(GraphStatements, PlainExpandedAndPytreeSignatures) {
  // Plain: annotations hold commas and brackets inside quotes; a parameter may be bare.
  std::vector<GraphLine> plain = graph_lines(
      "def forward(self, x: \"f32[4, 4][4, 1]cpu\", y, z: \"i64[2]\"):\n"
      "    mul: \"f32[4, 4]\" = torch.ops.aten.mul.Tensor(x, y);  x = y = None\n"
      "    return (mul,)\n");
  EXPECT_EQ(names(plain), (std::vector<std::string>{"x(in)", "y(in)", "z(in)", "mul"}));
  EXPECT_EQ(plain[0].bytes, 64u);
  EXPECT_EQ(plain[2].bytes, 16u);
  EXPECT_EQ(plain[3].line, 1u);
  // Expanded: one parameter per line.
  std::vector<GraphLine> expanded = graph_lines(
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(\n"
      "        self,\n"
      "        primals_1: \"f32[8]\",  # PlainAOTInput(idx=0)\n"
      "    ):\n"
      "        # ac_graph_id: 3 - MUST_SAVE\n"
      "        sin: \"f32[8]\" = torch.ops.aten.sin.default(primals_1)\n"
      "        return (sin,)\n");
  EXPECT_EQ(names(expanded), (std::vector<std::string>{"primals_1(in)", "sin"}));
  EXPECT_EQ(expanded[1].ac_graph_id, 3);
  EXPECT_EQ(expanded[1].recompute, "MUST_SAVE");
  // Pytree: the types first, then the flatten statement binds the inputs.
  std::vector<GraphLine> pytree = graph_lines(
      "    def forward(self, primals, tangents):\n"
      "        primals_1: \"f32[4]\"; tangents_1: \"f32[4]\"; \n"
      "        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], "
      "self._in_spec)\n"
      "        mul = torch.ops.aten.mul.Tensor(primals_1, tangents_1)\n");
  EXPECT_EQ(names(pytree), (std::vector<std::string>{"primals_1(in)", "tangents_1(in)", "mul"}));
  EXPECT_EQ(pytree[0].bytes, 16u);
}

}  // namespace
}  // namespace remat::fxtext
