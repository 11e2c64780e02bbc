// Golden files: every tag rule in every style, colors, show_meta, and the PyTorch 1.13 samples
// printed in the modern format. REMAT_UPDATE_GOLDEN=1 rewrites them; review the diff.
#include <gtest/gtest.h>

#include <filesystem>

#include "remat/io/graph_json.h"
#include "remat/print/printer.h"
#include "remat/support/file_io.h"
#include "testing/fixtures.h"
#include "testing/golden.h"

namespace remat {
namespace {

/// One node per tag rule (docs/spec/readable-text.md §8.2): both keys, policy only, id only,
/// neither; plus a custom annotation longer than 40 characters and meta for additional_meta.
GraphModule tag_rules_graph() {
  GraphModule m;
  m.class_name = "GraphModule";
  Graph& g = m.graph();
  TensorMeta f = testing::tensor(DType::BFloat16, {8}, {1}, "cuda:0");
  Node* x = g.placeholder("x");
  x->meta.set_tensor(f);
  x->meta.set_value_key(ValueKey::Val);
  InternedString trace(testing::traceback("/m.py", 7, "forward", "y = layer(x)"));
  auto call = [&](std::string_view t, Node* in) {
    Node* n = g.call_function(t, {Argument::node(in)});
    n->meta.set_tensor(f);
    n->meta.set_value_key(ValueKey::Val);
    n->meta.stack_trace = trace;
    n->meta.set_seq_nr(static_cast<int64_t>(g.size()));
    n->meta.partitioner_tag = PartitionerTag::IsForward;
    return n;
  };
  Node* both = call("aten.relu.default", x);
  both->meta.recompute = CheckpointPolicy::PreferRecompute;
  both->meta.set_ac_graph_id(3);
  Node* policy = call("aten.exp.default", both);
  policy->meta.recompute = CheckpointPolicy::MustSave;
  Node* id = call("aten.neg.default", policy);
  id->meta.set_ac_graph_id(3);
  Node* none = call("aten.sin.default", id);
  none->meta.set_custom(Argument::dict(
      {{"module_fqn", Argument::string("layers.0.attention.wo.weight.something_long")},
       {"is_fusible", Argument::boolean(true)}}));
  g.output(Argument::tuple({Argument::node(none)}));
  return m;
}

TEST(PrinterGolden, EveryTagRuleInEveryStyle) {
  GraphModule m = tag_rules_graph();
  for (auto [style, name] :
       {std::pair{TagStyle::Seed, "seed"}, std::pair{TagStyle::Inline2025, "inline-2025"},
        std::pair{TagStyle::Inline2026, "inline-2026"}}) {
    PrintOptions o;
    o.tag_style = style;
    o.truncate_annotations = style != TagStyle::Inline2025;  // Nov 2025 did not cut values
    o.additional_meta = {"seq_nr", "partitioner_tag"};
    testing::expect_golden(std::string("print/tag_rules_") + name + ".txt",
                           print_readable(m, o).text + "\n");
  }
  PrintOptions meta;
  meta.show_meta = true;
  std::string text = print_readable(m, meta).text + "\n";
  EXPECT_EQ(text.find("# ac_graph_id"), std::string::npos)
      << "no tag line when the full-meta block is shown";
  testing::expect_golden("print/tag_rules_show_meta.txt", text);
}

TEST(PrinterGolden, ColoredOutput) {
  testing::expect_golden(
      "print/seed_joint_colored.txt",
      print_readable(testing::seed_joint_graph(), PrintOptions::torch_logs()).text + "\n");
}

TEST(PrinterGolden, Torch113SamplesInTheModernFormat) {
  size_t count = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::data_path("torch-1.13"))) {
    std::string name = e.path().filename().string();
    if (e.path().extension() != ".json" || name.find("_flow") != std::string::npos ||
        name.find("_partition") != std::string::npos)
      continue;
    Expected<GraphModule> m = load_graph_json(e.path().string());
    ASSERT_TRUE(m.ok()) << format_all(m.errors());
    testing::expect_golden("print/samples/" + e.path().stem().string() + ".txt",
                           print_readable(*m).text + "\n");
    ++count;
  }
  EXPECT_EQ(count, 41U);
}

TEST(PrinterGolden, Torch113DialectPrintsWhatTorch113Printed) {
  // Each .txt beside a sample is PyTorch 1.13's own print_readable() output (not a golden):
  // the torch-1.13 dialect must reproduce it byte for byte from the exported graph.
  size_t count = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::data_path("torch-1.13"))) {
    if (e.path().extension() != ".txt") continue;
    std::filesystem::path json = e.path();
    json.replace_extension(".json");
    Expected<GraphModule> m = load_graph_json(json.string());
    ASSERT_TRUE(m.ok()) << format_all(m.errors());
    Expected<std::string> text = read_file(e.path().string());
    ASSERT_TRUE(text.ok());
    const std::string& want = *text;
    EXPECT_EQ(print_readable(*m, PrintOptions::torch_1_13()).text + "\n", want) << e.path();
    // The dialect is a choice: the same graph prints differently today.
    EXPECT_NE(print_readable(*m).text + "\n", want) << e.path();
    ++count;
  }
  EXPECT_EQ(count, 41U);
}

TEST(PrinterGolden, SeedFixtureFileIsTheFixture) {
  // tests/golden/io/seed_joint.json is the seed fixture as a file, for the CLI and the README.
  testing::expect_golden("io/seed_joint.json", write_graph_json(testing::seed_joint_graph()));
}

}  // namespace
}  // namespace remat
