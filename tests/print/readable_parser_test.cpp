// Reading print_readable text back: round trips, PyTorch 1.13's texts, diagnostics.
#include "remat/print/readable_parser.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "remat/io/graph_json.h"
#include "remat/ir/graph_equal.h"
#include "remat/ir/verify.h"
#include "remat/print/meta_text.h"
#include "remat/print/printer.h"
#include "remat/support/file_io.h"
#include "testing/fixtures.h"
#include "testing/golden.h"
#include "testing/graph_generator.h"

namespace remat {
namespace {

std::string slurp(const std::string& path) {
  Expected<std::string> t = read_file(path);
  EXPECT_TRUE(t.ok()) << path;
  return t ? *t : std::string();
}

GraphModule must_parse(const std::string& text, const std::string& name) {
  Expected<GraphModule> m = parse_readable(text, name);
  if (!m) ADD_FAILURE() << format_all(m.errors());
  return m ? std::move(m).value() : GraphModule();
}

/// What the text carries of a node: everything but requires_grad and tuple metadata.
std::string carried_difference(const Node& a, const Node& b) {
  std::string w = "node '" + a.name() + "': ";
  if (a.name() != b.name() || a.op() != b.op() || !(a.target() == b.target()))
    return w + "name/op/target differ (" + b.name() + ", " + b.target().str() + ")";
  if (a.args().size() != b.args().size()) return w + "arg count";
  for (size_t i = 0; i < a.args().size(); ++i)
    if (!same_argument(a.args()[i], b.args()[i])) return w + "arg " + std::to_string(i);
  if (a.kwargs().size() != b.kwargs().size()) return w + "kwarg count";
  for (size_t i = 0; i < a.kwargs().size(); ++i)
    if (!(a.kwargs()[i].key == b.kwargs()[i].key) ||
        !same_argument(a.kwargs()[i].value, b.kwargs()[i].value))
      return w + "kwarg " + a.kwargs()[i].key.str();
  if (const TensorMeta* t = a.meta.tensor()) {
    const TensorMeta* u = b.meta.tensor();
    if (u == nullptr) return w + "tensor metadata lost";
    if (t->dtype != u->dtype || !std::ranges::equal(t->sizes(), u->sizes()) ||
        t->strides().has_value() != u->strides().has_value() ||
        (t->strides() && !std::ranges::equal(*t->strides(), *u->strides())) ||
        !(t->device == u->device))
      return w + "tensor metadata differs";
  }
  if (a.meta.sym_value() != b.meta.sym_value() && a.meta.sym_value() &&
      a.meta.sym_value()->is_symbolic())
    return w + "sym value differs";
  if (!(a.meta.stack_trace == b.meta.stack_trace)) return w + "stack trace differs";
  if (a.meta.recompute != b.meta.recompute || a.meta.ac_graph_id() != b.meta.ac_graph_id())
    return w + "tags differ";
  if (a.meta.seq_nr() != b.meta.seq_nr() || a.meta.partitioner_tag != b.meta.partitioner_tag)
    return w + "seq_nr/partitioner_tag differ";
  if (!same_argument(a.meta.custom(), b.meta.custom())) return w + "custom differs";
  if (!same_argument(a.meta.desc(), b.meta.desc())) return w + "desc differs";
  return {};
}

std::string carried_difference(const GraphModule& a, const GraphModule& b) {
  if (a.graph().size() != b.graph().size())
    return "node count " + std::to_string(a.graph().size()) + " vs " +
           std::to_string(b.graph().size());
  const Node* y = b.graph().first();
  for (const Node* x = a.graph().first(); x != nullptr; x = x->next(), y = y->next()) {
    std::string d = carried_difference(*x, *y);
    if (!d.empty()) return d;
  }
  return {};
}

TEST(ReadableParser, SeedExampleRoundTripsInEveryTagStyle) {
  GraphModule seed = testing::seed_joint_graph();
  for (TagStyle style : {TagStyle::Seed, TagStyle::Inline2025, TagStyle::Inline2026}) {
    PrintOptions o = PrintOptions::tlparse();
    o.tag_style = style;
    std::string text = print_readable(seed, o).text;
    GraphModule back = must_parse(text, "seed.txt");
    EXPECT_EQ(print_readable(back, o).text, text);
    EXPECT_EQ(carried_difference(seed, back), "");
    EXPECT_EQ(back.class_name, "inner_f");
    EXPECT_EQ(back.codegen.kind, CodegenKind::Pytree);
    EXPECT_TRUE(verify(back).empty());
  }
}

TEST(ReadableParser, PrinterGoldensReadBackToTheSameText) {
  struct Golden {
    const char* file;
    PrintOptions options;
  };
  PrintOptions inline25 = PrintOptions::tlparse(), inline26 = PrintOptions::tlparse();
  inline25.tag_style = TagStyle::Inline2025;
  inline26.tag_style = TagStyle::Inline2026;
  PrintOptions tags;
  tags.additional_meta = {"seq_nr", "partitioner_tag"};
  PrintOptions tags25 = tags, tags26 = tags;
  tags25.tag_style = TagStyle::Inline2025;
  tags25.truncate_annotations = false;  // Nov 2025 did not cut Annotation values
  tags26.tag_style = TagStyle::Inline2026;
  std::vector<Golden> goldens{{"seed_joint_tlparse.txt", PrintOptions::tlparse()},
                              {"seed_joint_tlparse_inline-2025.txt", inline25},
                              {"seed_joint_tlparse_inline-2026.txt", inline26},
                              {"seed_joint_default.txt", {}},
                              {"seed_joint_colored.txt", PrintOptions::torch_logs()},
                              {"example3_hop.txt", {}},
                              {"tag_rules_seed.txt", tags},
                              {"tag_rules_inline-2025.txt", tags25},
                              {"tag_rules_inline-2026.txt", tags26}};
  for (const auto& e :
       std::filesystem::directory_iterator(testing::tests_dir() + "/golden/print/samples"))
    goldens.push_back({nullptr, {}}), goldens.back().file = nullptr, (void)e;
  size_t sample = 0;
  std::vector<std::string> sample_files;
  for (const auto& e :
       std::filesystem::directory_iterator(testing::tests_dir() + "/golden/print/samples"))
    sample_files.push_back("samples/" + e.path().filename().string());
  for (Golden& g : goldens) {
    std::string file = g.file ? g.file : sample_files[sample++];
    SCOPED_TRACE(file);
    std::string text = slurp(testing::tests_dir() + "/golden/print/" + file);
    GraphModule m = must_parse(text, file);
    EXPECT_EQ(print_readable(m, g.options).text + "\n", text);
  }
  EXPECT_EQ(sample, 41U);
}

TEST(ReadableParser, GeneratedGraphsRoundTrip) {
  // Property (fixed seeds): print(parse(print(g))) == print(g), and parse(print(g)) carries g.
  PrintOptions o = PrintOptions::tlparse();
  o.additional_meta = {"seq_nr", "partitioner_tag"};
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    GraphModule g =
        testing::generate_graph({.seed = seed, .num_nodes = 5 + seed % 60, .opaque_values = false});
    for (Node* n : g.graph().nodes())  // the text carries FakeTensor-style `val` metadata
      if (n->meta.tensor()) n->meta.set_value_key(ValueKey::Val);
    o.tag_style = static_cast<TagStyle>(seed % 3);
    std::string text = print_readable(g, o).text;
    Expected<GraphModule> back = parse_readable(text, "generated.txt");
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << format_all(back.errors()) << "\n" << text;
    ASSERT_EQ(print_readable(*back, o).text, text) << "seed " << seed;
    ASSERT_EQ(carried_difference(g, *back), "") << "seed " << seed;
  }
}

TEST(ReadableParser, Torch113TextsMatchTheirJsonTwins) {
  size_t count = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::data_path("torch-1.13"))) {
    if (e.path().extension() != ".txt") continue;
    std::string stem = e.path().stem().string();
    SCOPED_TRACE(stem);
    GraphModule text = must_parse(slurp(e.path().string()), stem + ".txt");
    Expected<GraphModule> json =
        load_graph_json(testing::data_path("torch-1.13/" + stem + ".json"));
    ASSERT_TRUE(json.ok());
    std::vector<const Node*> a, b;
    for (const Node* n : text.graph().nodes())
      if (n->op() == OpKind::CallFunction) a.push_back(n);
    for (const Node* n : json->graph().nodes())
      if (n->op() == OpKind::CallFunction) b.push_back(n);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      SCOPED_TRACE(a[i]->name());
      EXPECT_EQ(a[i]->name(), b[i]->name());
      EXPECT_EQ(a[i]->target().str(), b[i]->target().str());
      ASSERT_EQ(a[i]->args().size(), b[i]->args().size()) << a[i]->name();
      for (size_t k = 0; k < a[i]->args().size(); ++k)
        EXPECT_TRUE(same_argument(a[i]->args()[k], b[i]->args()[k]))
            << a[i]->name() << " arg " << k;
    }
    if (stem.ends_with("_joint")) {  // the CSE'd joint graphs print with a plain def
      EXPECT_EQ(text.codegen.kind, CodegenKind::Pytree);
    }
    ++count;
  }
  EXPECT_EQ(count, 41U);
}

TEST(ReadableParser, OlderFormsUnquotedAnnotationsAndColors) {
  std::string text =
      "class <lambda>(torch.nn.Module):\n"
      "    def forward(self, arg0_1: f32[3, 1, 1, 1], arg6_1: i64[]):\n"
      "        # No stacktrace found for following nodes\n"
      "        add: i64[] = torch.ops.aten.add.Tensor(arg6_1, 1);  arg6_1 = None\n"
      "        return (add, arg0_1)\n";
  GraphModule m = must_parse(text, "2023.txt");
  const Node* add = m.graph().find("add");
  ASSERT_NE(add, nullptr);
  ASSERT_NE(add->meta.tensor(), nullptr);
  EXPECT_EQ(add->meta.tensor()->dtype, DType::Int64);
  EXPECT_EQ(add->meta.tensor()->rank(), 0U);
  // A colored dump (TORCH_LOGS) reads like the plain one.
  std::string colored =
      print_readable(testing::seed_joint_graph(), PrintOptions::torch_logs()).text;
  GraphModule c = must_parse(colored, "colored.txt");
  EXPECT_EQ(carried_difference(testing::seed_joint_graph(), c).find("tensor"), std::string::npos);
  // The 2024 extra leading space before comments, and a log wrapper before the class.
  std::string wrapped = "TRACED GRAPH\n ===== Joint graph 0 =====\n" +
                        print_readable(testing::seed_joint_graph(), PrintOptions::tlparse()).text;
  size_t at = wrapped.find("        # File:");
  wrapped.insert(at, " ");
  GraphModule w = must_parse(wrapped, "wrapped.txt");
  EXPECT_EQ(w.graph().find("mm")->meta.ac_graph_id(), 2);
  EXPECT_FALSE(w.graph().find("sin")->meta.stack_trace.is_null());
}

TEST(ReadableParser, EllipsisReadsAsPythonsEllipsis) {
  // transformers' rotary embeddings index `position_ids[..., None]`; Dynamo's graph prints it
  // `position_ids[(Ellipsis, None)]` (found on Llama's TORCH_TRACE log).
  std::string text =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"i64[1, 8]\"):\n"
      "        getitem: \"i64[1, 8, 1]\" = x[(Ellipsis, None)];  x = None\n"
      "        return (getitem,)\n";
  GraphModule m = must_parse(text, "ellipsis.txt");
  const Node* getitem = m.graph().find("getitem");
  ASSERT_NE(getitem, nullptr);
  const Argument& index = getitem->args()[1];
  ASSERT_TRUE(index.is(ArgKind::Tuple));
  ASSERT_TRUE(index.elements()[0].is(ArgKind::Repr));
  EXPECT_EQ(index.elements()[0].repr_text(), "Ellipsis");
  EXPECT_NE(print_readable(m).text.find("x[(Ellipsis, None)]"), std::string::npos);
}

TEST(ReadableParser, SetitemStatementsReadBack) {
  // T5 shifts its labels right with `ids[..., 1:] = ...`; Dynamo prints operator.setitem as a
  // statement, then the node's own name as an alias (found on T5's TORCH_TRACE log).
  std::string text =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"i64[2, 8]\", y: \"i64[2, 7]\"):\n"
      "        x[(Ellipsis, slice(1, None, None))] = y;  setitem = x;  y = setitem = None\n"
      "        x[(Ellipsis, 0)] = 0;  setitem_1 = x;  setitem_1 = None\n"
      "        return (x,)\n";
  GraphModule m = must_parse(text, "setitem.txt");
  const Node* setitem = m.graph().find("setitem");
  ASSERT_NE(setitem, nullptr);
  EXPECT_EQ(setitem->target().view(), "operator.setitem");
  ASSERT_EQ(setitem->args().size(), 3U);
  EXPECT_EQ(setitem->args()[0].as_node()->name(), "x");
  EXPECT_EQ(setitem->args()[2].as_node()->name(), "y");
  EXPECT_TRUE(m.graph().find("setitem_1")->args()[2].is(ArgKind::Int));
  EXPECT_NE(print_readable(m).text.find("x[(Ellipsis, 0)] = 0;  setitem_1 = x"), std::string::npos);
}

TEST(ReadableParser, FuzzFindingInvalidUtf8InAStringIsRejected) {
  // Found by fuzz_readable: an invalid UTF-8 byte inside a quoted string changed meaning between
  // a parse and the next (the printer escapes it as \x92, which reads back as U+0092).
  std::string text =
      "class GraphModule(torch.nn.Module):\n    def forward(self, x):\n"
      "        y = torch.f(x, 'a\x92"
      "b')\n        return y\n";
  Expected<GraphModule> m = parse_readable(text, "bad.txt");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.errors()[0].message, "invalid UTF-8 in string");
  std::string comment =
      "class GraphModule(torch.nn.Module):\n    def forward(self, x):\n"
      "        # Annotation: {'k': 'a\x92"
      "b'} No stacktrace found for following nodes\n"
      "        y = torch.f(x)\n        return y\n";
  GraphModule c = must_parse(comment, "comment.txt");
  std::string printed = print_readable(c).text;
  EXPECT_EQ(print_readable(must_parse(printed, "again.txt")).text, printed);
}

TEST(ReadableParser, CodeWithoutClassWrapAnd2022Comments) {
  // gm.code reads back like print_readable output.
  GraphModule seed = testing::seed_joint_graph();
  std::string code = print_code(seed).text;
  GraphModule m = must_parse(code, "code.py");
  EXPECT_EQ(print_code(m).text, code);
  EXPECT_EQ(m.graph().size(), seed.graph().size());
  // fx.wrap preamble statements and the 2022 stack-trace comment.
  GraphModule w = must_parse(
      "class M(torch.nn.Module):\n    wrap(\"f\")\n    \n    def forward(self, x):\n"
      "        # File \"/t.py\", line 3, in fn, y = f(x)\n        y = torch.sin(x)\n        return "
      "y\n",
      "wrap.txt");
  EXPECT_EQ(w.graph().find("y")->meta.stack_trace.str(),
            "  File \"/t.py\", line 3, in fn\n    y = f(x)\n");
  // Malformed annotations are errors, not text printed back verbatim.
  Expected<GraphModule> bad = parse_readable(
      "class M(torch.nn.Module):\n    def forward(self, x):\n        y: \"f32[4, 'c']\" = "
      "torch.sin(x)\n"
      "        return y\n",
      "bad.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.errors()[0].message, "malformed shape in annotation");
}

TEST(ReadableParser, FuzzFindingStarredParameter) {
  // Found by fuzz_readable: a `*args` parameter's node kept the star in its name.
  GraphModule m = must_parse(
      "class A(torch.nn.Module):\n    def forward(self, *args):\n        return args\n", "s.txt");
  ASSERT_NE(m.graph().find("args"), nullptr);
  EXPECT_EQ(m.graph().find("args")->target().str(), "*args");
  std::string printed = print_readable(m).text;
  EXPECT_EQ(print_readable(must_parse(printed, "again.txt")).text, printed);
}

TEST(ReadableParser, FuzzFindingTorchOpsPathsThatAreNotOverloads) {
  // Found by fuzz_readable: `torch.ops.ns.op` (no overload) printed back as a bare global.
  std::string text =
      "class A(torch.nn.Module):\n    def forward(self, x, f = torch.ops.mylib.op):\n"
      "        y = torch.ops.mylib.op(x);  x = None\n        return (y, f)\n";
  GraphModule m = must_parse(text, "ops.txt");
  EXPECT_EQ(print_readable(m).text.find("torch.ops.mylib.op(x)") != std::string::npos, true);
  std::string printed = print_readable(m).text;
  EXPECT_EQ(print_readable(must_parse(printed, "again.txt")).text, printed);
}

TEST(ReadableParser, FuzzFindingBareReturn) {
  // Found by fuzz_readable: a bare `return` read past the end of the line.
  GraphModule m =
      must_parse("class A(torch.nn.Module):\n    def forward(self, x):\n        return\n", "r.txt");
  ASSERT_NE(m.graph().output_node(), nullptr);
  EXPECT_TRUE(m.graph().output_node()->args()[0].is_none());
}

TEST(ReadableParser, FuzzFindingAnnotationDictsThatAreNotLiterals) {
  // Found by fuzz_readable: a symbolic expression inside an annotation dict took its text from
  // the wrong line, and a dict that does not read back dropped the whole comment.
  for (std::string dict : {"{'k': e*}", "{'k': <object at 0x1>}"}) {
    std::string text =
        "class A(torch.nn.Module):\n    def forward(self, x):\n        # Annotation: " + dict +
        " File: /m.py:3 in f, code: y = g(x)\n        y = torch.g(x)\n        return y\n";
    GraphModule m = must_parse(text, "a.txt");
    std::string printed = print_readable(m).text;
    EXPECT_NE(printed.find("# Annotation: " + dict + " File: /m.py:3 in f, code: y = g(x)"),
              std::string::npos)
        << printed;
    EXPECT_EQ(print_readable(must_parse(printed, "again.txt")).text, printed);
  }
}

TEST(ReadableParser, FuzzFindingFlattenCallQuotedInAComment) {
  // Found by fuzz_readable in CI: a comment quoting `= fx_pytree.tree_flatten_spec([` made the
  // whole body look like pytree codegen, so the plain parameters were never bound.
  std::string text =
      "class A(torch.nn.Module):\n    def forward(self, x: \"bf16[8]\"):\n"
      "        # Annotation: {'k': 'a = fx_pytree.tree_flatten_spec([e'} File: /m.py:7 in f, code: "
      "y\n"
      "        relu: \"bf16[8]\" = torch.ops.aten.relu.default(x);  x = None\n"
      "        return (relu,)\n";
  GraphModule m = must_parse(text, "flatten.txt");
  EXPECT_EQ(m.codegen.kind, CodegenKind::Plain);
  ASSERT_NE(m.graph().find("x"), nullptr);
  std::string printed = print_readable(m).text;
  EXPECT_EQ(print_readable(must_parse(printed, "again.txt")).text, printed);
}

TEST(ReadableParser, FuzzFindingBareModuleNameAsArgument) {
  // Found by fuzz_readable: `torch.sin(torch)` read `torch` as an enum member without a class,
  // and printing it read past the end of the name.
  std::string text =
      "class A(torch.nn.Module):\n    def forward(self, x):\n"
      "        y = torch.sin(torch);  x = None\n        return (y,)\n";
  GraphModule m = must_parse(text, "bare.txt");
  std::string printed = print_readable(m).text;
  EXPECT_NE(printed.find("torch.sin(torch)"), std::string::npos) << printed;
  EXPECT_EQ(print_readable(must_parse(printed, "again.txt")).text, printed);
}

TEST(ReadableParser, DiagnosticsNameTheLineAndColumn) {
  auto error = [](const std::string& text) {
    Expected<GraphModule> m = parse_readable(text, "bad.txt");
    return m.ok() ? std::string("<parsed>") : m.errors()[0].format();
  };
  EXPECT_EQ(error("hello\n"),
            "bad.txt:1:1: error: no 'class NAME(torch.nn.Module):' or 'def forward(' line: not "
            "print_readable() or gm.code output");
  EXPECT_EQ(error("class A(torch.nn.Module):\n    def forward(self, x):\n        y = "
                  "torch.ops.aten.sin.default(z)\n        return y\n"),
            "bad.txt:3:40: error: undefined name 'z'\n          y = "
            "torch.ops.aten.sin.default(z)\n                                         ^");
  EXPECT_EQ(error("class A(torch.nn.Module):\n    def forward(self, x):\n        y = "
                  "torch.ops.aten.sin.default(x\n        return y\n"),
            "bad.txt:3:41: error: expected ',' or ')' after argument\n          y = "
            "torch.ops.aten.sin.default(x\n                                          ^");
  EXPECT_EQ(error("class A(torch.nn.Module):\n    def forward(self, x):\n        y = 'open\n"),
            "bad.txt:3:13: error: unterminated string\n          y = 'open\n              ^");
  EXPECT_EQ(
      error("class A(torch.nn.Module):\n    def forward(self, x):\n        y = x + x\n"),
      "bad.txt:1:1: error: class 'A' has no return statement\n  class A(torch.nn.Module):\n  ^");
  std::string deep = "class A(torch.nn.Module):\n    def forward(self, x):\n        y = torch.f(" +
                     std::string(500, '[') + "\n";
  EXPECT_NE(error(deep).find("nested too deeply"), std::string::npos);
  EXPECT_EQ(error("class A(torch.nn.Module):\n    def forward(self, x):\n        y: \"q9[2]\" = "
                  "torch.sin(x)\n        return y\n"),
            "bad.txt:3:12: error: unknown dtype abbreviation 'q9'\n          y: \"q9[2]\" = "
            "torch.sin(x)\n             ^");
}

TEST(ReadableParser, NodeTypesAreKeptAndPrintedAgain) {
  // Dynamo's 2024 output graphs (docs/spec/trace-log.md §A.4) type their placeholders with
  // node.type, unquoted and with a space before the colon; an unquoted `f32[...]` (PyTorch 2.1)
  // stays metadata.
  constexpr std::string_view kText =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, L_x_ : torch.Tensor, n : int = 3, y: f32[2]):\n"
      "        l_x_ = L_x_\n"
      "        cos = l_x_.cos();  l_x_ = None\n"
      "        return (cos,)\n"
      "        ";
  Expected<GraphModule> m = parse_readable(kText, "dynamo.txt");
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  const Node* x = m->graph().find("l_x_");  // target L_x_
  ASSERT_NE(x, nullptr);
  ASSERT_EQ(x->meta.node_fields().size(), 1u);
  EXPECT_EQ(x->meta.node_fields()[0].key, "type");
  EXPECT_EQ(x->meta.node_fields()[0].json, "\"torch.Tensor\"");
  EXPECT_TRUE(m->graph().find("y")->meta.node_fields().empty());
  EXPECT_TRUE(m->graph().find("y")->meta.tensor());
  std::string printed = print_readable(*m).text;
  EXPECT_NE(printed.find("def forward(self, L_x_ : torch.Tensor, n : int = 3, y: \"f32[2]\"):"),
            std::string::npos)
      << printed;
  // And through fxgraph-json.
  Expected<GraphModule> back = read_graph_json(write_graph_json(*m), "back.json");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(print_readable(*back).text, printed);
}

TEST(ReadableParser, InductorsGraphIdTrailerIsKeptAndPrintedAgain) {
  // Inductor's pre/post-grad graph artifacts end with a blank line and ` # graph id: N`.
  constexpr std::string_view kText =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[8, 8][8, 1]cpu\"):\n"
      "        # File: /tmp/k.py:8 in kernel, code: return x.sum()\n"
      "        sum_1: \"f32[][]cpu\" = torch.ops.aten.sum.default(arg0_1);  arg0_1 = None\n"
      "        return (sum_1,)\n"
      "        \n"
      "\n"
      " # graph id: 6175639120";
  Expected<GraphModule> m = parse_readable(kText, "post_grad.txt");
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  EXPECT_EQ(m->trailer, "\n\n # graph id: 6175639120");
  PrintOptions o;
  o.include_stride = o.include_device = true;
  PrintedCode printed = print_readable(*m, o);
  EXPECT_EQ(printed.text, kText);
  EXPECT_EQ(printed.line_nodes.size(), 8u);  // one entry per line, the trailer's included
  Expected<GraphModule> back = read_graph_json(write_graph_json(*m), "back.json");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->trailer, m->trailer);
  EXPECT_EQ(back->clone().trailer, m->trailer);
}

TEST(ReadableParser, OnlyGraphIdLinesMayFollowTheModule) {
  // Found by fuzz_readable: a trailer that quoted code read in, then printed text that did not.
  constexpr std::string_view kHead =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4]\"):\n"
      "        # No stacktrace found for following nodes\n"
      "        y: \"f32[4]\" = torch.sin(x);  x = None\n"
      "        return (y,)\n"
      "        \n";
  for (std::string_view tail :
       {"    # graph id: # Gradient addition node\n        t = x\n", " # graph id: 12\n t = x\n",
        " # graph id: \n", " # graph id: 12 \n"}) {
    Expected<GraphModule> m = parse_readable(std::string(kHead) + std::string(tail), "g.txt");
    ASSERT_FALSE(m.ok()) << tail;
    EXPECT_GE(m.errors()[0].line, 6) << format_all(m.errors());  // on the trailer, not before
  }
  Expected<GraphModule> ok = parse_readable(std::string(kHead) + " # graph id: 12\n\n", "g.txt");
  ASSERT_TRUE(ok.ok()) << format_all(ok.errors());
  EXPECT_EQ(print_readable(*ok).text, std::string(kHead) + " # graph id: 12\n\n");
}

TEST(ReadableParser, RecordsColorsOnlyFromColorCodes) {
  // Found by fuzz_readable: a stray ESC in a comment is text, not colored output.
  std::string text =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4]\"):\n"
      "        # File: /m\033.py:3 in f, code: y = x.sin()\n"
      "        sin: \"f32[4]\" = torch.ops.aten.sin.default(x);  x = None\n"
      "        return (sin,)\n"
      "        ";
  Expected<GraphModule> m = parse_readable(text, "g.txt");
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  EXPECT_FALSE(m->text_style->colored);
  EXPECT_EQ(print_readable(*m, PrintOptions::as_read(*m)).text, text);
  Expected<GraphModule> colored = parse_readable(
      "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"\033[31mf32\033[0m[4]\"):\n"
      "        return (x,)\n        ",
      "c.txt");
  ASSERT_TRUE(colored.ok()) << format_all(colored.errors());
  EXPECT_TRUE(colored->text_style->colored);
}

TEST(ReadableParser, KeepsAnnotationsItDoesNotModel) {
  // Subclass wrappers (2025's `"TwoTensor(f32[3, 4])"`) and other quoted annotations are kept as
  // text and printed again: the signature and a pytree prologue look as they did.
  std::string text =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"TwoTensor(f32[3, 4])\", y: \"DTensor\"):\n"
      "        # No stacktrace found for following nodes\n"
      "        add: \"TwoTensor(f32[3, 4])\" = torch.ops.aten.add.Tensor(x, y);  x = y = None\n"
      "        return (add,)\n"
      "        ";
  Expected<GraphModule> m = parse_readable(text, "g.txt");
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  EXPECT_EQ(print_readable(*m, PrintOptions::as_read(*m)).text, text);
  Expected<GraphModule> bad = parse_readable(
      "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"a\\\"b\"):\n        return "
      "(x,)\n        ",
      "b.txt");
  EXPECT_FALSE(bad.ok());
}

TEST(ReadableParser, FuzzFindingUnbalancedParenthesisInASymbolicSize) {
  // 2023's unquoted annotations: `[4, (1]` took an open parenthesis for part of a symbolic stride,
  // and the printed `(1]cuda:0 = ...` then swallowed the rest of the statement.
  Expected<GraphModule> m = parse_readable(
      "class A(torch.nn.Module):\n    def forward(self, x):\n        y: f32[4][(1]cpu = "
      "torch.ops.aten.sin.default(x)\n"
      "        return (y,)\n        ",
      "bad.txt");
  EXPECT_FALSE(m.ok());
  Expected<GraphModule> ok = parse_readable(
      "class A(torch.nn.Module):\n    def forward(self, x):\n        y: f32[(s0 + 1)][1]cpu = "
      "torch.ops.aten.sin.default(x)\n"
      "        return (y,)\n        ",
      "ok.txt");
  EXPECT_TRUE(ok.ok()) << format_all(ok.errors());
  // The same for `Sym(...)`: an open parenthesis took the rest of a pytree annotation line.
  auto sym = [](const std::string& annotations) {
    return parse_readable("class A(torch.nn.Module):\n    def forward(self, s):\n        " +
                              annotations +
                              "\n        primals_1, primals_2, = fx_pytree.tree_flatten_spec([s], "
                              "self._in_spec)\n"
                              "        return (primals_1,)\n        ",
                          "s.txt")
        .ok();
  };
  EXPECT_TRUE(sym("primals_1: Sym(s0 + 1); primals_2: Sym(Eq(s0, 4)); "));
  EXPECT_FALSE(sym("primals_1: Sym(Zero[4]; primals_2: f32[4]; e1:[ P(idx=0)"));
}

TEST(ReadableParser, FuzzFindingContextCommentThatReadsAs2xComment) {
  // `#  File: p.py:9 in f, code: ...` (two spaces) is no 2.x comment, so it read as a 1.13 context
  // line; 1.13's printer wrote it back as `# File: p.py:9 in f, ...`, which reads as a 2.x frame
  // (and prints without `in f` in 1.13's style). Such a comment now keeps no trace.
  // The same for `## File: ...`, which 1.13's printer wrote as 2025's `# # File: ...`.
  // And for a context holding `File:` further on, which read back as a 2.x comment's frame.
  for (const char* comment :
       {"#  File: /t.py:5 in f, code: return x.sin()", "## File: /t.py:5, code: return x.sin()",
        "#[ File: //u       # File: /t.py:9, code: return x.sin()"}) {
    std::string text =
        "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_ : torch.Tensor):\n        "
        "l_x_ = L_x_\n"
        "        \n        " +
        std::string(comment) +
        "\n        sin = l_x_.sin();  l_x_ = None\n"
        "        return (sin,)\n        ";
    Expected<GraphModule> m = parse_readable(text, "c.txt");
    ASSERT_TRUE(m.ok()) << format_all(m.errors());
    EXPECT_TRUE(m->graph().find("sin")->meta.stack_trace.is_null()) << comment;
    PrintOptions style = PrintOptions::as_read(*m);
    std::string printed = print_readable(*m, style).text;
    Expected<GraphModule> again = parse_readable(printed, "again.txt");
    ASSERT_TRUE(again.ok()) << format_all(again.errors());
    EXPECT_EQ(print_readable(*again, style).text, printed) << comment;
  }
}

TEST(ReadableParser, FuzzFindingKeptAnnotationIsQuotedAnnotationEvidence) {
  // An annotation remat keeps as text is still a quoted annotation: the text is no 1.13 print
  // (1.13 printed none, so the kept annotation was dropped and the pytree line did not read back).
  std::string text =
      "class GraphModule(torch.nn.Module):\n    def forward(self, primals):\n"
      "        primals_1: \"TwoTensor(f32[4])\"; \n    \n"
      "        primals_1, = fx_pytree.tree_flatten_spec([primals], self._in_spec)\n"
      "        # some context\n"
      "        sin = torch.ops.aten.sin.default(primals_1);  primals_1 = None\n"
      "        return pytree.tree_unflatten([sin], self._out_spec)\n        ";
  Expected<GraphModule> m = parse_readable(text, "k.txt");
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  EXPECT_EQ(m->text_style->dialect, Dialect::Current);
  std::string printed = print_readable(*m, PrintOptions::as_read(*m)).text;
  EXPECT_NE(printed.find("primals_1: \"TwoTensor(f32[4])\";"), std::string::npos) << printed;
  EXPECT_TRUE(parse_readable(printed, "again.txt").ok()) << printed;
}

TEST(ReadableParser, MetaBlocksAreKeptForTheirNodes) {
  // FX_GRAPH_SHOW_META: a `"""` block above each node with a meta. The body's first blocks are the
  // placeholders' (in order: y, with no meta, shows none), a block after a comment is its node's,
  // an op without a comment owns the block right above it.
  std::string text =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4]\", y: \"f32[4]\"):\n"
      "        \"\"\"\n"
      "        val: \"FakeTensor(..., size=(4,))\"\n"
      "        \"\"\"\n"
      "        \n"
      "        # File: /m.py:3 in f, code: a = x.sin()\n"
      "        \"\"\"\n"
      "        stack_trace: ('  File \"/m.py\", line 3, in f\\n'\n"
      "         '    a = x.sin()\\n')\n"
      "        \"\"\"\n"
      "        sin: \"f32[4]\" = torch.ops.aten.sin.default(x);  x = None\n"
      "        \"\"\"\n"
      "        seq_nr: '7'\n"
      "        \"\"\"\n"
      "        add: \"f32[4]\" = torch.ops.aten.add.Tensor(sin, y);  sin = y = None\n"
      "        return (add,)\n"
      "        ";
  Expected<GraphModule> m = parse_readable(text, "meta.txt");
  ASSERT_TRUE(m.ok()) << format_all(m.errors());
  EXPECT_TRUE(m->text_style->show_meta);
  auto block = [&](const char* name) {
    return node_type_text(*m->graph().find(name), "meta_block").value_or("<none>");
  };
  EXPECT_EQ(block("x"), "\"\"\"\nval: \"FakeTensor(..., size=(4,))\"\n\"\"\"");
  EXPECT_EQ(block("y"), "");
  EXPECT_EQ(
      block("sin"),
      "\"\"\"\nstack_trace: ('  File \"/m.py\", line 3, in f\\n'\n '    a = x.sin()\\n')\n\"\"\"");
  EXPECT_EQ(block("add"), "\"\"\"\nseq_nr: '7'\n\"\"\"");
  EXPECT_EQ(block("output"), "");
  EXPECT_EQ(print_readable(*m, PrintOptions::as_read(*m)).text, text);
  PrintOptions without = PrintOptions::as_read(*m);
  without.show_meta = false;
  EXPECT_EQ(print_readable(*m, without).text.find("\"\"\""), std::string::npos);
  // Dynamo's renames: a placeholder's block comes before its `l_x_ = L_x_`; one below the last
  // rename is the next node's (fuzz_readable gave it to a placeholder, which printed it higher).
  std::string renamed =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, s, L_x_: \"f32[4]\"):\n"
      "        \"\"\"\n        k: 'v'\n        \"\"\"\n"
      "        l_x_ = L_x_\n"
      "        \"\"\"\n        user_stack: '[]'\n        \"\"\"\n"
      "        return (l_x_,)\n"
      "        ";
  Expected<GraphModule> r = parse_readable(renamed, "renamed.txt");
  ASSERT_TRUE(r.ok()) << format_all(r.errors());
  EXPECT_EQ(node_type_text(*r->graph().find("output"), "meta_block"),
            "\"\"\"\nuser_stack: '[]'\n\"\"\"");
  EXPECT_EQ(print_readable(*r, PrintOptions::as_read(*r)).text, renamed);
  // Blocks that belong to no node, or two for one node, are errors at their line.
  auto error = [](const std::string& body) {
    Expected<GraphModule> bad =
        parse_readable("class A(torch.nn.Module):\n    def forward(self, x):\n" + body, "bad.txt");
    return bad.ok() ? std::string("<parsed>") : bad.errors()[0].format();
  };
  const std::string b = "        \"\"\"\n        k: 'v'\n        \"\"\"\n";
  EXPECT_EQ(error(b + b + b + "        return (x,)\n"),
            "bad.txt:9:9: error: a second meta block for one node\n          \"\"\"\n          ^");
  EXPECT_EQ(error("        return (x,)\n" + b),
            "bad.txt:4:9: error: a meta block that no node follows\n          \"\"\"\n          ^");
  EXPECT_EQ(error("        # File: /m.py:3 in f, code: y\n" + b +
                  "        # File: /m.py:4 in f, code: z\n" + b + "        return (x,)\n"),
            "bad.txt:8:9: error: a second meta block for one node\n          \"\"\"\n          ^");
  EXPECT_EQ(error("        \"\"\"\n        k: 'v'"),
            "bad.txt:3:9: error: unterminated \"\"\" block\n          \"\"\"\n          ^");
  EXPECT_EQ(error("        \"\"\"\n\n        \"\"\"\n        return (x,)\n"),
            "bad.txt:4:1: error: a meta block ends before its closing \"\"\": its lines are "
            "indented like the body, none blank");
}

}  // namespace
}  // namespace remat
