// Every era of PyTorch's print_readable text reads in and prints back byte for byte, in the style
// the parser recorded, directly and after a hop through fxgraph-json.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "remat/io/graph_json.h"
#include "remat/print/printer.h"
#include "remat/print/readable_parser.h"
#include "remat/print/round_trip.h"
#include "remat/support/file_io.h"
#include "remat/tracelog/trace_reader.h"
#include "testing/fixtures.h"
#include "testing/golden.h"

namespace remat {
namespace {

/// Prints `text` back through the parser, then through JSON; returns "" or what went wrong.
std::string round_trip(const std::string& text, const std::string& name) {
  if (std::string problem = round_trip_problem(text, name); !problem.empty()) return problem;
  Expected<GraphModule> m = parse_readable(text, name);
  Expected<GraphModule> back = read_graph_json(write_graph_json(*m), name + ".json");
  if (!back) return format_all(back.errors());
  if (print_readable(*back, PrintOptions::as_read(*back)).text != text)
    return "printed differently after fxgraph-json";
  return "";
}

/// The graph payloads of a trace log: dynamo, AOT and Inductor graph dumps and `*_graph` artifacts.
std::vector<tracelog::TraceRecord> graph_payloads(const std::string& path) {
  auto reader = tracelog::TraceReader::open(path);
  EXPECT_TRUE(reader.ok());
  std::vector<tracelog::TraceRecord> out;
  tracelog::TraceRecord r;
  while (reader.ok() && (*reader)->next(r)) {
    if (tracelog::holds_printed_graph(r)) out.push_back(r);
  }
  return out;
}

TEST(EraRoundTrip, EveryGraphOfTheTlparseLogsPrintsBackByteForByte) {
  // PyTorch 2.4-2.6 logs: dynamo output graphs with `L_x_ : torch.Tensor` signatures, 9-column
  // comments, Inductor's `# graph id` trailers, AOT inference graphs with strides and devices.
  std::set<std::string> distinct;
  size_t read = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(testing::data_path("tlparse-logs"))) {
    if (e.path().extension() != ".log") continue;
    for (const tracelog::TraceRecord& r : graph_payloads(e.path().string())) {
      ++read;
      if (!distinct.insert(r.payload).second) continue;
      std::string name = e.path().filename().string() + ":" + std::to_string(r.lineno);
      EXPECT_EQ(round_trip(r.payload, name), "") << name << " (" << r.event << ")";
    }
  }
  EXPECT_EQ(distinct.size(), 58u) << read << " payloads read";
}

TEST(EraRoundTrip, EveryGraphOfAPyTorch213LogPrintsBackByteForByte) {
  // PyTorch 2.13's own TORCH_TRACE log (tests/data/torch-2.13/NOTICE): Dynamo's graphs, and
  // AOT's joint, forward and backward graphs with strides, devices, expanded signatures, AOT
  // descriptors and recompute tags.
  std::set<std::string> events;
  size_t read = 0;
  for (const tracelog::TraceRecord& r :
       graph_payloads(testing::data_path("torch-2.13/compile_models.log"))) {
    ++read;
    events.insert(r.event);
    std::string name = "compile_models.log:" + std::to_string(r.lineno);
    EXPECT_EQ(round_trip(r.payload, name), "") << name << " (" << r.event << ")";
    Expected<GraphModule> m = parse_readable(r.payload, name);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->text_style->indent_blank_lines, false) << name << ": read as 2.13's era";
  }
  EXPECT_EQ(read, 24u);  // six compiles, four graphs each
  EXPECT_EQ(events, (std::set<std::string>{"dynamo_output_graph", "aot_joint_graph",
                                           "aot_forward_graph", "aot_backward_graph"}));
}

TEST(EraRoundTrip, EveryTorch113PrintReadsBackInItsStyle) {
  // tests/data/torch-1.13: what PyTorch 1.13's print_readable printed, context comments and all.
  size_t count = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::data_path("torch-1.13"))) {
    if (e.path().extension() != ".txt") continue;
    Expected<std::string> text = read_file(e.path().string());
    ASSERT_TRUE(text.ok());
    std::string body = text->substr(0, text->size() - 1);  // print() added the last newline
    EXPECT_EQ(round_trip(body, e.path().filename().string()), "") << e.path();
    Expected<GraphModule> m = parse_readable(body, "x.txt");
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->text_style->dialect, Dialect::Torch113) << e.path();
    ++count;
  }
  EXPECT_EQ(count, 41u);
}

TEST(EraRoundTrip, SpecExamplesReadAsTheirEra) {
  // tests/golden/print/eras/<era>__<what>.txt: hand-written from docs/spec/readable-text.md
  // (§1.4, §4.1, §5, §10). Each prints back byte for byte, and the parser names its era's rules.
  size_t count = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(testing::tests_dir() + "/golden/print/eras")) {
    std::string file = e.path().filename().string();
    size_t sep = file.find("__");
    if (sep == std::string::npos) continue;  // the seed joint printed in each era
    Expected<std::string> text = read_file(e.path().string());
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(round_trip(*text, file), "") << file;
    Expected<GraphModule> m = parse_readable(*text, file);
    ASSERT_TRUE(m.ok()) << format_all(m.errors());
    TextStyle want = *m->text_style;
    ASSERT_TRUE(apply_style_name(file.substr(0, sep), want)) << file;
    EXPECT_EQ(*m->text_style, want) << file;
    ++count;
  }
  EXPECT_EQ(count, 8u);
}

TEST(EraRoundTrip, AnyGraphPrintsInAnyEra) {
  // The seed joint (tags, stack traces, a pytree signature) in every named style: goldens that
  // read back in the style they were printed in.
  GraphModule joint = testing::seed_joint_graph();
  for (std::string_view name : style_names()) {
    if (name == "current") continue;  // the same as seed
    PrintOptions o;
    ASSERT_TRUE(apply_style_name(name, o));
    o.include_stride = o.include_device = true;
    std::string text = print_readable(joint, o).text;
    testing::expect_golden("print/eras/seed_joint_as_" + std::string(name) + ".txt", text);
    EXPECT_EQ(round_trip(text, std::string(name)), "") << name;
  }
}

}  // namespace
}  // namespace remat
