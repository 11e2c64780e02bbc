// The report in a real browser: headless Chromium (Debian's `chromium`) loads the index and the
// joint graph's page of a compile, with no console message at all (errors, failed loads, logs),
// with the elements the report promises, and leaves screenshots in the build folder.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string chromium_binary() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (fs::exists(candidate)) return candidate;
  }
  return "";
}

struct Page {
  int exit_code;
  std::string dom, console;
};

// Loads `url` in a fresh profile: the DOM after scripts ran, and every console line.
Page load(const std::string& chromium, const fs::path& work, const std::string& url, const fs::path& screenshot) {
  fs::path profile = work / ("profile_" + screenshot.stem().string());
  std::string flags = "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-dev-shm-usage --no-first-run "
                      "--enable-logging=stderr --v=0 --window-size=1280,1600 --user-data-dir=" + profile.string();
  std::string dom = (work / "dom.html").string(), err = (work / "stderr.txt").string();
  int status = std::system(("timeout 120 " + chromium + " " + flags + " --dump-dom '" + url + "' >" + dom + " 2>" + err).c_str());
  Page p{WEXITSTATUS(status), slurp(dom), ""};
  std::istringstream lines(slurp(err));
  for (std::string line; std::getline(lines, line);) {
    if (line.find(":CONSOLE") != std::string::npos) p.console += line + "\n";
  }
  fs::remove_all(profile);
  std::system(("timeout 120 " + chromium + " " + flags + " --screenshot=" + screenshot.string() + " '" + url + "' >/dev/null 2>&1").c_str());
  fs::remove_all(profile);
  return p;
}

TEST(Browser, ReportPagesLoadCleanInChromium) {
  std::string chromium = chromium_binary();
  ASSERT_FALSE(chromium.empty()) << "Chromium is not installed (tools/setup.sh --deps-only installs Debian's chromium)";
  fs::path work = fs::temp_directory_path() / ("remat_browser_" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  std::string compile = std::string(REMAT_EXE) + " compile --model gpt2 --layers 2 --checkpoint each-layer --no-check -o " +
                        (work / "out").string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(compile.c_str()), 0);
  fs::path shots = fs::path(REMAT_BUILD_DIR) / "browser";
  fs::create_directories(shots);
  fs::path site = work / "out" / "report";

  Page index = load(chromium, work, "file://" + (site / "index.html").string(), shots / "index.png");
  EXPECT_EQ(index.exit_code, 0);
  EXPECT_EQ(index.console, "") << "console output on index.html";
  for (const char* element : {"id=\"stack-trie\"", "id=\"compile-directory\"", "class=\"artifact\"", "class=\"partition\"", "<footer>"}) {
    EXPECT_NE(index.dom.find(element), std::string::npos) << element;
  }
  Page joint = load(chromium, work, "file://" + (site / "-_0_0_0" / "aot_joint_graph_1.html").string(), shots / "joint_graph.png");
  EXPECT_EQ(joint.exit_code, 0);
  EXPECT_EQ(joint.console, "") << "console output on the joint graph page";
  for (const char* element : {"id=\"regions\"", "id=\"partition-legend\"", "data-ac-graph-id=\"2\"", "mark-saved", "mark-recomputed",
                              "id=\"why-panel\"", "class=\"gutter\""}) {
    EXPECT_NE(joint.dom.find(element), std::string::npos) << element;
  }
  Page partition = load(chromium, work, "file://" + (site / "-_0_0_0" / "remat_partition_4.html").string(), shots / "partition.png");
  EXPECT_EQ(partition.exit_code, 0);
  EXPECT_EQ(partition.console, "") << "console output on the partition page";
  for (const char* element : {"class=\"partition\"", "id=\"saved-values\"", "id=\"recomputed-nodes\""}) {
    EXPECT_NE(partition.dom.find(element), std::string::npos) << element;
  }
  Page backward = load(chromium, work, "file://" + (site / "-_0_0_0" / "aot_backward_graph_3.html").string(), shots / "backward_graph.png");
  EXPECT_EQ(backward.console, "") << "console output on the backward graph page";
  EXPECT_NE(backward.dom.find("id=\"input-tags\""), std::string::npos);
  EXPECT_TRUE(fs::exists(shots / "index.png"));
  EXPECT_GT(fs::file_size(shots / "joint_graph.png"), 10000u);
  EXPECT_GT(fs::file_size(shots / "partition.png"), 10000u);

  // The check can fail: a page with a script error is caught.
  std::ofstream(work / "broken.html") << "<html><body><script>undefined_function();</script></body></html>";
  Page broken = load(chromium, work, "file://" + (work / "broken.html").string(), work / "broken.png");
  EXPECT_NE(broken.console.find("undefined_function"), std::string::npos) << broken.console;
  fs::remove_all(work);
}

}  // namespace
