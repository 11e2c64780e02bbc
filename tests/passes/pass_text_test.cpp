// The passes' text tests (tests/passes/*.txt), in the manner of LLVM's lit and FileCheck: each
// file is a graph in readable text with a `# RUN: opt ARGS` line and `# CHECK` lines; the test
// runs `remat opt FILE ARGS` and matches its output (stdout, then stderr) against the checks.
// `# EXIT: N` expects another exit code than 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <unistd.h>

#include "remat/passes/pass_registry.h"
#include "remat/support/file_io.h"
#include "testing/file_check.h"
#include "testing/golden.h"

namespace remat::passes {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  Expected<std::string> text = read_file(path.string());
  return text ? *text : std::string();
}

std::vector<fs::path> text_tests() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(testing::tests_dir()) / "passes"))
    if (e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The value of the first `# KEY:` line of `text`, or empty.
std::string directive(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line, prefix = "# " + key + ":";
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) == 0) {
      std::string value = line.substr(prefix.size());
      value.erase(0, value.find_first_not_of(' '));
      return value;
    }
  }
  return {};
}

class PassText : public ::testing::TestWithParam<fs::path> {};

TEST_P(PassText, OutputMatchesItsChecks) {
  const fs::path& file = GetParam();
  std::string text = slurp(file);
  std::string run = directive(text, "RUN");
  ASSERT_TRUE(run == "opt" || run.rfind("opt ", 0) == 0U)
      << file << ": needs a '# RUN: opt ARGS' line";
  std::vector<std::string> bad;
  std::vector<testing::CheckLine> checks = testing::check_lines(text, &bad);
  EXPECT_TRUE(bad.empty()) << file << ": " << (bad.empty() ? "" : bad.front());
  ASSERT_FALSE(checks.empty()) << file << ": a text test without checks checks nothing";
  std::string expected_exit = directive(text, "EXIT");
  fs::path scratch = fs::temp_directory_path() /
                     ("remat_pass_text_" + std::to_string(getpid()) + "_" + file.stem().string());
  fs::create_directories(scratch);
  std::string out = (scratch / "stdout").string(), err = (scratch / "stderr").string();
  std::string cmd =
      std::string(REMAT_EXE) + " opt " + file.string() + run.substr(3) + " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  std::string output = slurp(out) + slurp(err);
  fs::remove_all(scratch);
  EXPECT_EQ(WEXITSTATUS(status), expected_exit.empty() ? 0 : std::stoi(expected_exit))
      << cmd << "\n"
      << output;
  for (const std::string& failure : testing::file_check(checks, output, file.filename().string()))
    ADD_FAILURE() << failure << "\n--- the output of " << cmd << " ---\n" << output;
}

INSTANTIATE_TEST_SUITE_P(Files, PassText, ::testing::ValuesIn(text_tests()),
                         [](const ::testing::TestParamInfo<fs::path>& param) {
                           std::string name = param.param.stem().string();
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return name;
                         });

// Every registered pass is run by name in at least one text test.
TEST(PassText, EveryPassHasOne) {
  std::vector<std::string> run_lines;
  for (const fs::path& file : text_tests()) run_lines.push_back(directive(slurp(file), "RUN"));
  for (const PassInfo& p : registered_passes()) {
    bool tested = std::any_of(run_lines.begin(), run_lines.end(), [&](const std::string& run) {
      size_t at = run.find("--passes=");
      if (at == std::string::npos) return false;
      std::string list = "," + run.substr(at + 9, run.find(' ', at) - at - 9) + ",";
      return list.find("," + p.name + ",") != std::string::npos;
    });
    EXPECT_TRUE(tested) << "no tests/passes/*.txt runs the pass " << p.name;
  }
}

}  // namespace
}  // namespace remat::passes
