// Every class of bad input gives one clear diagnostic naming the file and the place.
#include <gtest/gtest.h>

#include "remat/io/flow_network.h"
#include "remat/io/fxgraph_file.h"
#include "remat/io/graph_json.h"

namespace remat {
namespace {

constexpr const char* kHeader = R"({"schema": "fxgraph-json/1", "nodes": [)";

std::string graph(const std::string& nodes) {
  return kHeader + nodes + "]}";
}

const std::string kX = R"({"name": "x", "op": "placeholder", "target": "x"})";
const std::string kOut =
    R"({"name": "output", "op": "output", "target": "output", "args": [{"tuple": [{"node": "x"}]}]})";

struct Case {
  std::string what;
  std::string text;
  std::string expected;  // the whole formatted diagnostic
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.what;
}

class BadGraphInput : public ::testing::TestWithParam<Case> {};

TEST_P(BadGraphInput, GivesOneDiagnosticWithItsPlace) {
  const Case& c = GetParam();
  Expected<GraphModule> m = read_graph_json(c.text, "bad.json");
  ASSERT_FALSE(m.ok()) << c.what;
  ASSERT_EQ(m.errors().size(), 1U);
  EXPECT_EQ(m.errors()[0].format(), c.expected) << c.what;
}

std::string call(const std::string& name, const std::string& args) {
  return R"({"name": ")" + name +
         R"(", "op": "call_function", "target": "aten.sin.default", "args": )" + args + "}";
}

INSTANTIATE_TEST_SUITE_P(
    Classes, BadGraphInput,
    ::testing::Values(
        Case{"malformed JSON", "{\"schema\": \"fxgraph-json/1\",\n \"nodes\": [}",
             "bad.json:2:12: error: invalid JSON: syntax error while parsing value - unexpected "
             "'}'; "
             "expected '[', '{', or a literal\n   \"nodes\": [}\n             ^"},
        Case{"truncated file", "{\"schema\": \"fxgraph-json/1\", \"nodes\": [",
             "bad.json:1:40: error: invalid JSON: syntax error while parsing value - unexpected "
             "end of input; expected '[', '{', or a literal\n  {\"schema\": \"fxgraph-json/1\", "
             "\"nodes\": [\n                                         ^"},
        Case{"empty file", "",
             "bad.json:1:1: error: invalid JSON: syntax error while parsing value - "
             "unexpected end of input; expected '[', '{', or a literal"},
        Case{"root is not an object", "[1, 2]",
             "bad.json: error: expected an object, got an array"},
        Case{"wrong schema tag", R"({"schema": "fxgraph-json/2", "nodes": []})",
             "bad.json: error: at schema: wrong schema \"fxgraph-json/2\", expected "
             "\"fxgraph-json/1\""},
        Case{"missing schema", R"({"nodes": []})",
             "bad.json: error: missing \"schema\" (expected \"fxgraph-json/1\")"},
        Case{"dangling node reference",
             graph(kX + ", " + call("sin", R"([{"node": "y"}])") + ", " + kOut),
             "bad.json: error: at nodes[1].args[0].node: dangling reference to node 'y', which the "
             "graph does not define"},
        Case{"use before definition",
             graph(kX + ", " + call("sin", R"([{"node": "cos"}])") + ", " +
                   call("cos", R"([{"node": "x"}])") + ", " + kOut),
             "bad.json: error: at nodes[1].args[0].node: node 'cos' is used before its definition"},
        Case{"duplicate names",
             graph(kX + ", " + call("sin", R"([{"node": "x"}])") + ", " +
                   call("sin", R"([{"node": "x"}])") + ", " + kOut),
             "bad.json: error: at nodes[2].name: duplicate node name 'sin'"},
        Case{"unknown op kind", graph(R"({"name": "x", "op": "call_lambda", "target": "x"})"),
             "bad.json: error: at nodes[0].op: unknown op kind \"call_lambda\" (expected "
             "placeholder, "
             "get_attr, call_function, call_method, call_module or output)"},
        Case{"unknown value tag",
             graph(kX + ", " + call("sin", R"([{"node": "x"}, {"tensor": 1}])") + ", " + kOut),
             "bad.json: error: at nodes[1].args[1]: unknown value tag \"tensor\""},
        Case{"untagged float",
             graph(kX + ", " + call("sin", R"([{"node": "x"}, 0.5])") + ", " + kOut),
             "bad.json: error: at nodes[1].args[1]: untagged float 0.5; floats are written "
             "{\"float\": 0.5}"},
        Case{"untagged array", graph(kX + ", " + call("sin", R"([[1, 2]])") + ", " + kOut),
             "bad.json: error: at nodes[1].args[0]: untagged array; write {\"list\": [...]} or "
             "{\"tuple\": [...]}"},
        Case{"bad float text",
             graph(kX + ", " + call("sin", R"([{"float": "infinity"}])") + ", " + kOut),
             "bad.json: error: at nodes[1].args[0].float: expected a number or \"inf\", \"-inf\", "
             "\"nan\", got \"infinity\""},
        Case{"integer too large",
             graph(kX + ", " + call("sin", R"([18446744073709551615])") + ", " + kOut),
             "bad.json: error: at nodes[1].args[0]: integer 18446744073709551615 is too large (at "
             "most 2^63-1)"},
        Case{"no output node", graph(kX),
             "bad.json: error: at nodes: a graph needs exactly one output node, this one has 0"},
        Case{"missing name", graph(R"({"op": "placeholder", "target": "x"})"),
             "bad.json: error: at nodes[0]: node without \"name\""},
        Case{
            "unknown dtype",
            graph(
                R"({"name": "x", "op": "placeholder", "target": "x", "meta": {"tensor_meta": {"dtype": "torch.float33", "shape": []}}}, )" +
                kOut),
            "bad.json: error: at nodes[0].meta.tensor_meta.dtype: unknown dtype \"torch.float33\""},
        Case{
            "stride rank mismatch",
            graph(
                R"({"name": "x", "op": "placeholder", "target": "x", "meta": {"tensor_meta": {"dtype": "torch.float32", "shape": [2, 2], "stride": [1]}}}, )" +
                kOut),
            "bad.json: error: at nodes[0].meta.tensor_meta.stride: stride has 1 entries but shape "
            "has 2"},
        Case{
            "nbytes mismatch",
            graph(
                R"({"name": "x", "op": "placeholder", "target": "x", "meta": {"tensor_meta": {"dtype": "torch.float32", "shape": [2, 2], "nbytes": 8}}}, )" +
                kOut),
            "bad.json: error: at nodes[0].meta.tensor_meta.nbytes: nbytes 8 does not match shape "
            "and dtype (16)"},
        Case{
            "unknown checkpoint policy",
            graph(
                R"({"name": "x", "op": "placeholder", "target": "x", "meta": {"recompute": "SOMETIMES"}}, )" +
                kOut),
            "bad.json: error: at nodes[0].meta.recompute: unknown checkpoint policy \"SOMETIMES\""},
        Case{"users disagree with args",
             graph(R"({"name": "x", "op": "placeholder", "target": "x", "users": ["ghost"]}, )" +
                   kOut),
             "bad.json: error: at nodes[0].users: lists user 'ghost', which the graph does not "
             "define"},
        Case{"users missing one",
             graph(R"({"name": "x", "op": "placeholder", "target": "x", "users": []}, )" + kOut),
             "bad.json: error: at nodes[0].users: does not list user 'output', which uses 'x'"},
        Case{"placeholders list disagrees",
             R"({"schema": "fxgraph-json/1", "placeholders": ["y"], "nodes": [)" + kX + ", " +
                 kOut + "]}",
             "bad.json: error: at placeholders: does not match the placeholder nodes in order (1 "
             "placeholder nodes)"},
        Case{"outputs list disagrees",
             R"({"schema": "fxgraph-json/1", "outputs": ["x", null], "nodes": [)" + kX + ", " +
                 kOut + "]}",
             "bad.json: error: at outputs: does not match the output node's values (1 outputs)"},
        Case{
            "output with two args",
            graph(kX +
                  R"(, {"name": "output", "op": "output", "target": "output", "args": [1, 2]})"),
            "bad.json: error: at nodes[1].args: the output node takes exactly one argument, got 2"},
        Case{"wrong type for args",
             graph(R"({"name": "x", "op": "placeholder", "target": "x", "args": {}})"),
             "bad.json: error: at nodes[0].args: expected an array, got an object"},
        Case{"saved value names no node",
             R"({"schema": "fxgraph-json/1", "saved_values": ["z"], "nodes": [)" + kX + ", " +
                 kOut + "]}",
             "bad.json: error: at saved_values[0]: names no node of the graph: 'z'"},
        Case{"slice with two parts",
             graph(kX + ", " + call("sin", R"([{"slice": [1, 2]}])") + ", " + kOut),
             "bad.json: error: at nodes[1].args[0].slice: a slice has 3 parts [start, stop, step], "
             "got 2"}),
    [](const ::testing::TestParamInfo<Case>& param) {
      std::string name;
      for (char c : param.param.what) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(BadInput, FlowNetworkReferencesUnknownVertex) {
  Expected<FlowNetwork> f = read_flow_json(
      R"({"schema": "fxgraph-json/1#flow", "nodes": ["source", "sink"], "edges": [["source", "mid", 3]]})",
      "flow.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.errors()[0].format(),
            "flow.json: error: at edges[0][1]: names no vertex of the network: 'mid'");
}

TEST(BadInput, UnknownSchemaForAnyDocument) {
  Expected<FxgraphDocument> d = read_fxgraph(R"({"schema": "something/3"})", "x.json");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.errors()[0].format(), "x.json: error: at schema: unknown schema \"something/3\"");
}

}  // namespace
}  // namespace remat
