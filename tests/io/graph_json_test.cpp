#include "remat/io/graph_json.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "remat/ir/graph_equal.h"
#include "remat/ir/verify.h"
#include "remat/support/file_io.h"
#include "testing/golden.h"
#include "testing/graph_generator.h"

namespace remat {
namespace {

std::vector<std::string> graph_samples() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(testing::data_path("torch-1.13"))) {
    std::string name = e.path().filename().string();
    if (e.path().extension() == ".json" && name.find("_flow") == std::string::npos &&
        name.find("_partition") == std::string::npos)
      out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

GraphModule must_read(const std::string& text, const std::string& file) {
  Expected<GraphModule> m = read_graph_json(text, file);
  if (!m) ADD_FAILURE() << format_all(m.errors());
  return m ? std::move(m).value() : GraphModule();
}

TEST(GraphJson, EverySampleRoundTripsByteIdenticallyOnTheSecondWrite) {
  std::vector<std::string> samples = graph_samples();
  ASSERT_EQ(samples.size(),
            41U);  // 2 models from shared/data, 5 from tools/capture_torch_joints.py
  for (const std::string& name : samples) {
    SCOPED_TRACE(name);
    Expected<std::string> text = read_file(testing::data_path("torch-1.13/" + name));
    ASSERT_TRUE(text.ok());
    GraphModule first = must_read(*text, name);
    EXPECT_TRUE(verify(first).empty()) << format_all(verify(first));
    std::string w1 = write_graph_json(first);
    GraphModule second = must_read(w1, name);
    EXPECT_EQ(first_difference(first, second), "");
    EXPECT_EQ(write_graph_json(second), w1);
  }
}

TEST(GraphJson, SeedJointGraphContents) {
  Expected<GraphModule> m =
      load_graph_json(testing::data_path("torch-1.13/ckpt_sin_mm_sigmoid_joint.json"));
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  const Graph& g = m->graph();
  EXPECT_EQ(g.size(), 18U);
  EXPECT_EQ(m->num_fwd_outputs, 1);
  EXPECT_EQ(m->num_primals, 2);
  const Node* mm = g.find("mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->target().view(), "aten.mm.default");
  EXPECT_EQ(mm->args()[0].as_node()->name(), "sin");
  EXPECT_EQ(mm->args()[1].as_node()->name(), "primals_2");
  ASSERT_NE(mm->meta.tensor(), nullptr);
  EXPECT_EQ(mm->meta.tensor()->nbytes(), 64);
  EXPECT_EQ(mm->meta.tensor()->device.view(), "cpu");
  const Node* t = g.find("t");
  ASSERT_NE(t, nullptr);
  auto strides = t->meta.tensor()->strides();
  ASSERT_TRUE(strides);
  EXPECT_EQ((*strides)[0].value(), 1);
  EXPECT_EQ((*strides)[1].value(), 4);
  // Node-level keys remat does not interpret are kept.
  bool kept = false;
  for (const RawJsonField& f : mm->meta.node_fields())
    if (f.key == "target_repr")
      kept = f.json == "\"<OpOverload(op='aten.mm', overload='default')>\"";
  EXPECT_TRUE(kept);
  testing::expect_golden("io/ckpt_sin_mm_sigmoid_joint.json", write_graph_json(*m));
}

TEST(GraphJson, MultiOutputSampleKeepsNullTensorMeta) {
  Expected<GraphModule> m = load_graph_json(testing::data_path("torch-1.13/mlp_relu_joint.json"));
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  const Node* sum = m->graph().find("sum_1");
  ASSERT_NE(sum, nullptr);
  ASSERT_EQ(sum->args().size(), 3U);
  EXPECT_EQ(sum->args()[1].kind(), ArgKind::List);
  EXPECT_TRUE(sum->args()[2].as_bool());
}

TEST(GraphJson, GeneratedGraphsWithEveryValueKindRoundTrip) {
  // Property (fixed seeds): write -> read gives an equal graph, and writing again is identical.
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    GraphModule m = testing::generate_graph({.seed = seed, .num_nodes = 10 + seed % 90});
    std::string w1 = write_graph_json(m);
    Expected<GraphModule> back = read_graph_json(w1, "generated");
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << format_all(back.errors());
    ASSERT_EQ(first_difference(m, *back), "") << "seed " << seed;
    ASSERT_EQ(write_graph_json(*back), w1) << "seed " << seed;
  }
}

TEST(GraphJson, ModuleFieldsSubmodulesAndMetaRoundTrip) {
  GraphModule m;
  m.graph_name = "joint";
  m.class_name = "inner_f";
  m.codegen = {CodegenKind::Pytree, {"primals", "tangents"}};
  m.num_primals = 1;
  m.num_tangents = 0;
  m.num_fwd_outputs = 1;
  m.extras.push_back({"torch_version", "\"2.9\""});
  Graph& g = m.graph();
  Node* x = g.placeholder("primals_1");
  x->meta.set_desc(Argument::string("PlainAOTInput(idx=0)"));
  std::array<SymInt, 2> sizes{SymInt::symbolic("s0"), SymInt(8)};
  std::array<SymInt, 2> strides{SymInt(8), SymInt(1)};
  TensorMeta t(DType::BFloat16, sizes, std::span<const SymInt>(strides), InternedString("cuda:0"));
  t.mutable_extras().push_back({"is_conj", "false"});
  x->meta.set_tensor(t);
  Node* sym = g.call_function("aten.sym_size.int", {Argument::node(x), Argument::integer(0)});
  sym->meta.set_sym_value(SymInt::symbolic("s0"));
  sym->meta.set_value_key(ValueKey::Val);
  Node* split = g.call_function("aten.split.Tensor", {Argument::node(x), Argument::integer(2)});
  split->meta.set_tensor_tuple({t, std::nullopt});
  split->meta.recompute = CheckpointPolicy::MustCpuOffload;
  split->meta.set_ac_graph_id(100000);
  split->meta.set_custom(Argument::dict({{"module_fqn", Argument::string("layers.0")},
                                         {"is_fusible", Argument::boolean(true)},
                                         {"weight", Argument::floating(1.0)}}));
  split->meta.mutable_extras().push_back({"nn_module_stack", "{\"a\":[1,2]}"});
  split->meta.set_source_keys({"val", "recompute"});
  Node* out = g.output(Argument::tuple({Argument::node(split), Argument::none()}));
  out->meta.set_desc(Argument::list({Argument::string("PlainAOTOutput(idx=0)"), Argument::none()}));
  auto body = std::make_unique<GraphModule>();
  Node* bx = body->graph().placeholder("x");
  body->graph().output(Argument::tuple({Argument::node(bx)}));
  m.submodules.push_back({"wrap_body_0", std::move(body)});

  std::string w1 = write_graph_json(m);
  Expected<GraphModule> back = read_graph_json(w1, "module");
  ASSERT_TRUE(back.ok()) << format_all(back.errors());
  EXPECT_EQ(first_difference(m, *back), "");
  EXPECT_EQ(write_graph_json(*back), w1);
  EXPECT_EQ(back->graph().find("aten_sym_size"), nullptr);
  EXPECT_EQ(back->submodules[0].module->graph().size(), 2U);
}

}  // namespace
}  // namespace remat

namespace remat {
namespace {

// What remat.export writes for a torch.compile joint: the primals that are parameters (by index
// among the primals) and, for a symbolic shape, its element count under the size hints.
TEST(GraphJson, StaticLifetimeInputsAndSymbolicSizeHintsRoundTrip) {
  const std::string text = R"({"schema": "fxgraph-json/1", "num_fwd_outputs": 1,
    "static_lifetime_input_indices": [1],
    "nodes": [
      {"name": "primals_1", "op": "placeholder", "target": "primals_1",
       "meta": {"val": {"dtype": "torch.float32", "shape": [{"sym": "s77"}, 16], "numel_hint": 64}}},
      {"name": "primals_2", "op": "placeholder", "target": "primals_2",
       "meta": {"val": {"dtype": "torch.float32", "shape": [16]}}},
      {"name": "output", "op": "output", "target": "output",
       "args": [{"tuple": [{"node": "primals_1"}, {"node": "primals_2"}]}]}]})";
  GraphModule m = must_read(text, "hints.json");
  ASSERT_TRUE(m.static_lifetime_input_indices.has_value());
  EXPECT_EQ(*m.static_lifetime_input_indices, std::vector<int64_t>{1});
  const TensorMeta* t = m.graph().find("primals_1")->meta.tensor();
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->nbytes().has_value());  // symbolic: no exact size
  EXPECT_EQ(t->numel_hint(), 64);
  EXPECT_EQ(t->estimated_nbytes(), 256);
  EXPECT_EQ(m.graph().find("primals_2")->meta.tensor()->numel_hint(), std::nullopt);
  std::string written = write_graph_json(m);
  EXPECT_NE(written.find("\"static_lifetime_input_indices\": [1]"), std::string::npos) << written;
  EXPECT_NE(written.find("\"numel_hint\": 64"), std::string::npos) << written;
  GraphModule again = must_read(written, "hints.json");
  EXPECT_EQ(first_difference(m, again), "");
  EXPECT_EQ(write_graph_json(again), written);
  // The same symbolic shape with another hint is another value.
  TensorMeta other = *t;
  other.set_numel_hint(128);
  EXPECT_FALSE(other == *t);
}

TEST(GraphJson, NegativeStaticLifetimeIndexIsRejectedAtItsPlace) {
  Expected<GraphModule> m = read_graph_json(
      R"({"schema": "fxgraph-json/1", "static_lifetime_input_indices": [0, -1], "nodes": []})",
      "bad.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(format_all(m.errors()).find("static_lifetime_input_indices[1]"), std::string::npos)
      << format_all(m.errors());
}

TEST(GraphJson, StackTraceTableIsReadAndWrittenInline) {
  // The nodes after the table in the file and before it read the same traces.
  for (bool table_first : {true, false}) {
    const std::string table =
        R"("stack_traces": ["  File \"a.py\", line 1", "  File \"b.py\", line 2"],
      "tensor_metas": [{"dtype": "torch.float32", "shape": [2, 3]}], "meta_keys": [["stack_trace", "val"]])";
    const std::string nodes = R"("nodes": [
      {"name": "x", "op": "placeholder", "target": "x",
       "meta": {"stack_trace_ref": 1, "tensor_meta": null, "val_ref": 0, "keys_ref": 0}},
      {"name": "y", "op": "placeholder", "target": "y", "meta": {"stack_trace": null}},
      {"name": "output", "op": "output", "target": "output",
       "args": [{"tuple": [{"node": "x"}, {"node": "y"}]}], "meta": {"stack_trace_ref": 0}}])";
    const std::string text = "{\"schema\": \"fxgraph-json/1\", " +
                             (table_first ? table + ", " + nodes : nodes + ", " + table) + "}";
    GraphModule m = must_read(text, "table.json");
    EXPECT_EQ(m.graph().find("x")->meta.stack_trace.view(), "  File \"b.py\", line 2");
    ASSERT_NE(m.graph().find("x")->meta.tensor(), nullptr);
    EXPECT_EQ(m.graph().find("x")->meta.tensor()->numel(), 6);
    EXPECT_EQ(m.graph().find("x")->meta.source_keys(),
              (std::vector<std::string>{"stack_trace", "val"}));
    EXPECT_TRUE(m.graph().find("y")->meta.stack_trace.is_null());
    EXPECT_EQ(m.graph().find("output")->meta.stack_trace.view(), "  File \"a.py\", line 1");
    std::string written = write_graph_json(m);
    EXPECT_EQ(written.find("_ref"), std::string::npos) << written;
    EXPECT_NE(written.find(R"("shape": [2, 3])"), std::string::npos) << written;
    EXPECT_NE(written.find(R"("stack_trace": "  File \"b.py\", line 2")"), std::string::npos);
  }
}

TEST(GraphJson, TableIndexOutsideItsTableIsRejectedAtItsPlace) {
  for (const char* key : {"stack_trace_ref", "val_ref", "keys_ref"}) {
    for (const char* ref : {"2", "-1"}) {
      Expected<GraphModule> m = read_graph_json(
          std::string(R"({"schema": "fxgraph-json/1", "stack_traces": ["a", "b"], "nodes": [
            {"name": "x", "op": "placeholder", "target": "x", "meta": {")") +
              key + "\": " + ref + "}}]}",
          "bad.json");
      ASSERT_FALSE(m.ok());
      EXPECT_NE(format_all(m.errors()).find(std::string("nodes[0].meta.") + key), std::string::npos)
          << format_all(m.errors());
    }
  }
}

}  // namespace
}  // namespace remat
