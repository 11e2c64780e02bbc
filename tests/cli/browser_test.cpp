// The report in a real browser: headless Chromium (Debian's `chromium`) loads the index and the
// joint graph's page of a compile, with no console message at all (errors, failed loads, logs),
// with the elements the report promises, and leaves screenshots in the build folder.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "remat/report/graph_html.h"
#include "remat/report/html.h"
#include "remat/tracelog/trace_writer.h"
#include "testing/golden.h"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string chromium_binary() {
  for (const char* candidate :
       {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (fs::exists(candidate)) return candidate;
  }
  return "";
}

struct Page {
  int exit_code;
  std::string dom, console;
};

// Loads `url` in a fresh profile: the DOM after scripts ran, and every console line.
Page load(const std::string& chromium, const fs::path& work, const std::string& url,
          const fs::path& screenshot) {
  fs::path profile = work / ("profile_" + screenshot.stem().string());
  std::string flags =
      "--headless --no-sandbox --disable-gpu --disable-background-networking "
      "--disable-dev-shm-usage --no-first-run "
      "--enable-logging=stderr --v=0 --window-size=1280,1600 --user-data-dir=" +
      profile.string();
  std::string dom = (work / "dom.html").string(), err = (work / "stderr.txt").string();
  int status = std::system(
      ("timeout 120 " + chromium + " " + flags + " --dump-dom '" + url + "' >" + dom + " 2>" + err)
          .c_str());
  Page p{WEXITSTATUS(status), slurp(dom), ""};
  std::istringstream lines(slurp(err));
  for (std::string line; std::getline(lines, line);) {
    if (line.find(":CONSOLE") != std::string::npos) p.console += line + "\n";
  }
  fs::remove_all(profile);
  std::system(("timeout 120 " + chromium + " " + flags + " --screenshot=" + screenshot.string() +
               " '" + url + "' >/dev/null 2>&1")
                  .c_str());
  fs::remove_all(profile);
  return p;
}

TEST(Browser, ReportPagesLoadCleanInChromium) {
  std::string chromium = chromium_binary();
  ASSERT_FALSE(chromium.empty())
      << "Chromium is not installed (tools/setup.sh --deps-only installs Debian's chromium)";
  fs::path work = fs::temp_directory_path() / ("remat_browser_" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  std::string compile =
      std::string(REMAT_EXE) +
      " compile --model gpt2 --layers 2 --checkpoint each-layer --no-check --graphs -o " +
      (work / "out").string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(compile.c_str()), 0);
  fs::path shots = fs::path(REMAT_BUILD_DIR) / "browser";
  fs::create_directories(shots);
  fs::path site = work / "out" / "report";

  Page index =
      load(chromium, work, "file://" + (site / "index.html").string(), shots / "index.png");
  EXPECT_EQ(index.exit_code, 0);
  EXPECT_EQ(index.console, "") << "console output on index.html";
  for (const char* element : {"id=\"stack-trie\"", "id=\"compile-directory\"", "class=\"artifact\"",
                              "class=\"partition\"", "<footer>"}) {
    EXPECT_NE(index.dom.find(element), std::string::npos) << element;
  }
  Page joint =
      load(chromium, work, "file://" + (site / "-_0_0_0" / "aot_joint_graph_1.html").string(),
           shots / "joint_graph.png");
  EXPECT_EQ(joint.exit_code, 0);
  EXPECT_EQ(joint.console, "") << "console output on the joint graph page";
  for (const char* element :
       {"id=\"regions\"", "id=\"partition-legend\"", "data-ac-graph-id=\"2\"", "mark-saved",
        "mark-recomputed", "id=\"why-panel\"", "class=\"gutter\""}) {
    EXPECT_NE(joint.dom.find(element), std::string::npos) << element;
  }
  Page partition =
      load(chromium, work, "file://" + (site / "-_0_0_0" / "remat_partition_4.html").string(),
           shots / "partition.png");
  EXPECT_EQ(partition.exit_code, 0);
  EXPECT_EQ(partition.console, "") << "console output on the partition page";
  for (const char* element :
       {"class=\"partition\"", "id=\"saved-values\"", "id=\"recomputed-nodes\"",
        "id=\"memory-timeline\"", "id=\"budget-curve\"", "id=\"region-map\"", "id=\"memory-peak\"",
        "id=\"budget-chosen\"", "class=\"curve c2\"", "data-ac-graph-id=\"2\"",
        "href=\"aot_joint_graph_1.html#L"}) {
    EXPECT_NE(partition.dom.find(element), std::string::npos) << element;
  }
  // The timeline's peak, as the browser has it, is the partition record's peak-memory estimate.
  std::string record = slurp(site / "-_0_0_0" / "remat_partition_4.json");
  std::string key = "\"peak_memory_bytes\": ";
  size_t at = record.find(key);
  ASSERT_NE(at, std::string::npos);
  std::string peak =
      record.substr(at + key.size(), record.find_first_of(",\n", at) - at - key.size());
  EXPECT_NE(partition.dom.find("data-peak-bytes=\"" + peak + "\""), std::string::npos) << peak;
  // remat partition --html: the same pictures with the joint graph on one page.
  std::string page = (work / "partition.html").string();
  ASSERT_EQ(std::system((std::string(REMAT_EXE) + " partition " +
                         (work / "out" / "graphs" / "joint.json").string() + " --html " + page +
                         " >/dev/null 2>&1")
                            .c_str()),
            0);
  Page single = load(chromium, work, "file://" + page, shots / "partition_html.png");
  EXPECT_EQ(single.exit_code, 0);
  EXPECT_EQ(single.console, "") << "console output on remat partition --html's page";
  for (const char* element : {"id=\"memory-timeline\"", "id=\"budget-curve\"", "id=\"region-map\"",
                              "id=\"why-panel\"", "href=\"#L"}) {
    EXPECT_NE(single.dom.find(element), std::string::npos) << element;
  }
  // PyTorch's partition, read off its graphs: the same pictures but the sweep.
  fs::path graphs = work / "out" / "graphs";
  ASSERT_EQ(std::system((std::string(REMAT_EXE) + " report " + (graphs / "joint.json").string() +
                         " --fw " + (graphs / "forward.json").string() + " --bw " +
                         (graphs / "backward.json").string() + " -o " + (work / "theirs").string() +
                         " >/dev/null 2>&1")
                            .c_str()),
            0);
  Page theirs = load(chromium, work,
                     "file://" + (work / "theirs" / "-_0_0_0" / "pytorch_partition.html").string(),
                     shots / "pytorch_partition.png");
  EXPECT_EQ(theirs.exit_code, 0);
  EXPECT_EQ(theirs.console, "") << "console output on the derived partition page";
  for (const char* element : {"id=\"memory-timeline\"", "id=\"region-map\"", "<polyline"}) {
    EXPECT_NE(theirs.dom.find(element), std::string::npos) << element;
  }
  Page backward =
      load(chromium, work, "file://" + (site / "-_0_0_0" / "aot_backward_graph_3.html").string(),
           shots / "backward_graph.png");
  EXPECT_EQ(backward.console, "") << "console output on the backward graph page";
  EXPECT_NE(backward.dom.find("id=\"input-tags\""), std::string::npos);
  EXPECT_TRUE(fs::exists(shots / "index.png"));
  EXPECT_GT(fs::file_size(shots / "joint_graph.png"), 10000u);
  EXPECT_GT(fs::file_size(shots / "partition.png"), 10000u);
  EXPECT_GT(fs::file_size(shots / "partition_html.png"), 10000u);

  // The check can fail: a page with a script error is caught.
  std::ofstream(work / "broken.html")
      << "<html><body><script>undefined_function();</script></body></html>";
  Page broken =
      load(chromium, work, "file://" + (work / "broken.html").string(), work / "broken.png");
  EXPECT_NE(broken.console.find("undefined_function"), std::string::npos) << broken.console;
  fs::remove_all(work);
}

// The <pre> of `page` as the browser has it once the page's script ran.
std::string drawn_code(const std::string& chromium, const fs::path& work, const std::string& name,
                       const std::string& page) {
  std::ofstream(work / (name + ".html")) << page;
  Page p =
      load(chromium, work, "file://" + (work / (name + ".html")).string(), work / (name + ".png"));
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.console, "") << "console output on " << name;
  size_t start = p.dom.find("<pre class=\"code\" id=\"graph-code\">");
  size_t end = p.dom.find("</pre>", start);
  if (start == std::string::npos || end == std::string::npos) return "no <pre> in " + p.dom;
  // A line of the golden file per line of code: a difference names its line.
  std::string pre = p.dom.substr(start, end + 6 - start), out;
  for (size_t at = 0;;) {
    size_t next = pre.find("<span class=\"line", at + 1);
    out += pre.substr(at, next == std::string::npos ? std::string::npos : next - at) + "\n";
    if (next == std::string::npos) return out;
    at = next;
  }
}

TEST(Browser, GraphPagesDrawTheirLinesFromTheTextAndItsData) {
  // A graph page carries its text and a JSON of each line's node, region and chips; its script
  // numbers, anchors, highlights and marks the lines. What the browser draws is the golden file
  // (the markup remat wrote itself before: the same classes, ids, attributes and tooltips).
  std::string chromium = chromium_binary();
  ASSERT_FALSE(chromium.empty());
  fs::path work = fs::temp_directory_path() / ("remat_browser_graph_" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  const std::string joint =
      "class inner_f(torch.nn.Module):\n"
      "    def forward(self, primals, tangents):\n"
      "        primals_1: \"f32[4, 4][4, 1]cpu\"; primals_2: \"f32[4, 4][4, 1]cpu\"; tangents_1: "
      "\"f32[4, 4][4, 1]cpu\"; \n"
      "        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, "
      "tangents], self._in_spec)\n"
      "        # File: /m.py:3 in f, code: return (x < 1) & y.sin()  <script>\n"
      "        sin: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.sin.default(primals_1)\n"
      "        \n"
      "        # ac_graph_id: 1 - PREFER_RECOMPUTE\n"
      "        mm: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.mm.default(sin, primals_2)\n"
      "        # ac_graph_id: 2 - MUST_SAVE\n"
      "        mul: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.mul.Tensor(mm, 0.5)\n"
      "        sigmoid_backward: \"f32[4, 4][4, 1]cpu\" = "
      "torch.ops.aten.sigmoid_backward.default(tangents_1, mul);  mul = None\n"
      "        return pytree.tree_unflatten([mm, sigmoid_backward], self._out_spec)\n";
  remat::report::PartitionMarks marks;
  marks.saved = {{"sin", 64}, {"mul", 64}, {"primals_2", 64}};
  marks.inputs = {"primals_2"};
  marks.recomputed.insert("mm");
  marks.why["sin"] = "checkpoint-region input";
  marks.why["mul"] = "tagged MUST_SAVE <\"quoted\">";
  marks.why["mm"] = "tagged PREFER_RECOMPUTE";
  marks.flops["mm"] = 128;
  marks.forward = {"primals_1", "primals_2", "sin", "mm", "mul"};
  marks.backward = {"sin", "primals_2", "tangents_1", "mm", "mul", "sigmoid_backward"};
  std::string drawn =
      drawn_code(chromium, work, "joint",
                 remat::report::html_page(
                     "joint", remat::report::graph_html("joint", joint, &marks, "joint.txt"), ""));
  // A backward graph as PyTorch prints it: the saved input's tag after the signature.
  const std::string backward =
      slurp(fs::path(remat::testing::tests_dir()) / "golden/print/backward_with_input_tag.txt");
  drawn +=
      drawn_code(chromium, work, "backward",
                 remat::report::html_page(
                     "backward", remat::report::graph_html("backward", backward, nullptr, ""), ""));
  remat::testing::expect_golden("report/graph_pages_drawn.html", drawn);
  // What the lines say, checked here too rather than only in the golden file.
  for (const char* drawn_piece :
       {"<span class=\"line\" id=\"L9\" data-node=\"mm\" data-ac-graph-id=\"1\" "
        "style=\"background:hsl(67, 75%, 92%);border-left:4px solid hsl(67, 60%, 45%)\">"
        "<span class=\"ln\">9</span><span class=\"gutter\"><span class=\"mark mark-recomputed\" "
        "title=\"mm: recomputed — tagged PREFER_RECOMPUTE (128 FLOPs)\">recomputed 64 B</span>",
        "<span class=\"op\">torch.ops.aten.mm.default</span>",
        "title=\"primals_2: input, read by the backward\">primals_2: input, read by the backward "
        "64 B</span>",
        "title=\"mul: saved — tagged MUST_SAVE &lt;&quot;quoted&quot;&gt;\"",
        "<span class=\"c\"># File: /m.py:3 in f, code: return (x &lt; 1) &amp; y.sin()  "
        "&lt;script&gt;</span>",
        "<span class=\"line input-tag\" id=\"L7\" title=\"the tag of an input (a saved value): "
        "printed by PyTorch, not a recomputation\">"}) {
    EXPECT_NE(drawn.find(drawn_piece), std::string::npos) << drawn_piece;
  }
  fs::remove_all(work);
}

TEST(Browser, MultiRankExportAndProvenancePagesLoadClean) {
  std::string chromium = chromium_binary();
  ASSERT_FALSE(chromium.empty())
      << "Chromium is not installed (tools/setup.sh --deps-only installs Debian's chromium)";
  fs::path work = fs::temp_directory_path() / ("remat_browser_modes_" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  fs::path shots = fs::path(REMAT_BUILD_DIR) / "browser";
  fs::create_directories(shots);
  std::string data = remat::testing::data_path("tlparse-logs");
  ASSERT_EQ(std::system((std::string(REMAT_EXE) + " report " + data +
                         "/multi_rank_logs --all-ranks-html -o " + (work / "ranks").string() +
                         " >/dev/null 2>&1")
                            .c_str()),
            0);
  ASSERT_EQ(std::system((std::string(REMAT_EXE) + " report " + data + "/export.log --export -o " +
                         (work / "export").string() + " >/dev/null 2>&1")
                            .c_str()),
            0);
  // A compile with Inductor's node mappings, for the provenance page.
  auto w = remat::tracelog::TraceWriter::create((work / "log").string());
  ASSERT_TRUE(w.ok());
  remat::tracelog::CompileId id{std::nullopt, 0, 0, 0};
  (*w)->write("inductor_pre_grad_graph", "{}", id,
              "class GraphModule(torch.nn.Module):\n    def forward(self, x):\n        mul = x * "
              "2;  x = None\n        return (mul,)\n        ");
  (*w)->write(
      "inductor_post_grad_graph", "{}", id,
      "class GraphModule(torch.nn.Module):\n    def forward(self, arg0_1):\n        mul_1 = "
      "torch.ops.aten.mul.Tensor(arg0_1, 2);  arg0_1 = None\n        return (mul_1,)\n        ");
  (*w)->write(
      "inductor_output_code", "{}", id,
      "def call(args):\n    triton_poi_fused_mul_0.run(arg0_1, buf0, 4)\n    return (buf0,)\n");
  (*w)->artifact(
      "inductor_provenance_tracking_node_mappings", "json", id,
      R"({"preToPost": {"mul": ["mul_1"]}, "cppCodeToPost": {"triton_poi_fused_mul_0": ["mul_1"]}})");
  auto log = (*w)->close();
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(std::system((std::string(REMAT_EXE) + " report " + *log + " -i -o " +
                         (work / "prov").string() + " >/dev/null 2>&1")
                            .c_str()),
            0);

  Page ranks = load(chromium, work, "file://" + (work / "ranks" / "index.html").string(),
                    shots / "multi_rank.png");
  EXPECT_EQ(ranks.console, "") << "console output on the multi-rank landing page";
  for (const char* element : {"id=\"desync-warning\"", "id=\"ranks\"", "id=\"cache-groups\"",
                              "href=\"rank_1/index.html\""})
    EXPECT_NE(ranks.dom.find(element), std::string::npos) << element;
  Page exported = load(chromium, work, "file://" + (work / "export" / "index.html").string(),
                       shots / "export.png");
  EXPECT_EQ(exported.console, "") << "console output on the export index";
  EXPECT_NE(exported.dom.find("id=\"export-failures\""), std::string::npos);
  Page prov = load(chromium, work,
                   "file://" + (work / "prov" / "provenance_tracking_-_0_0_0.html").string(),
                   shots / "provenance.png");
  EXPECT_EQ(prov.console, "") << "console output on the provenance page";
  for (const char* element : {"id=\"pre\"", "id=\"post\"", "id=\"py\"", "id=\"line-mappings\""})
    EXPECT_NE(prov.dom.find(element), std::string::npos) << element;
  fs::remove_all(work);
}

}  // namespace
