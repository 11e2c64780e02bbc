// Files from elsewhere (docs/security.md): the crafted inputs of tests/security/ (cases.json
// says what each must give), and the large ones made here (deep nesting, long lines), run
// through the remat executable in a fresh working folder. Each must end with its exit code, a
// bounded message, nothing written outside the output folder, and (under the sanitizers, as
// CI runs this binary too) no undefined behaviour.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "testing/golden.h"

namespace {
namespace fs = std::filesystem;

// No message grows with the input: a few hundred bytes per diagnostic, a few diagnostics.
constexpr size_t kMaxStderr = 4096;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  int exit_code;
  std::string out, err;
};

// A fresh working folder per test; commands run inside it.
class Work {
 public:
  Work() {
    static int counter = 0;
    root_ = fs::temp_directory_path() /
            ("remat_untrusted_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "work");
  }
  ~Work() { fs::remove_all(root_); }
  [[nodiscard]] fs::path dir() const { return root_ / "work"; }

  Outcome run(const std::string& args) const {
    std::string cmd = "cd '" + dir().string() + "' && " + REMAT_EXE + " " + args + " >'" +
                      (root_ / "stdout").string() + "' 2>'" + (root_ / "stderr").string() + "'";
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
            slurp(root_ / "stdout"), slurp(root_ / "stderr")};
  }

  // Every file and folder under the working folder, relative to it.
  [[nodiscard]] std::set<std::string> listing() const {
    std::set<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir()))
      names.insert(fs::relative(e.path(), dir()).string());
    return names;
  }

 private:
  fs::path root_;
};

// What a run left in the working folder beyond its input: only `out`, `out.py` and what is in
// `out/` (no staging folder, no lock, nothing beside).
void expect_only_outputs(const Work& w, const std::string& input, const std::string& what) {
  for (const std::string& name : w.listing()) {
    bool ok = name == input || name == "out" || name == "out.py" || name.starts_with("out/");
    EXPECT_TRUE(ok) << what << ": wrote " << name;
  }
}

std::string site_text(const Work& w) {
  std::string all;
  if (!fs::exists(w.dir() / "out")) return all;
  for (const auto& e : fs::recursive_directory_iterator(w.dir() / "out"))
    if (e.is_regular_file() && e.path().extension() == ".html") all += slurp(e.path());
  return all;
}

uintmax_t bytes_under(const fs::path& dir) {
  uintmax_t total = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) total += e.file_size();
  return total;
}

TEST(UntrustedFiles, EveryCraftedInputEndsAsItsCaseSays) {
  fs::path cases_dir = remat::testing::data_path("../security");
  nlohmann::json cases = nlohmann::json::parse(slurp(cases_dir / "cases.json"));
  ASSERT_GE(cases.size(), 18u);
  for (const auto& c : cases) {
    std::string what = c["name"].get<std::string>(), input = c["input"].get<std::string>();
    Work w;
    fs::copy_file(cases_dir / input, w.dir() / input);
    std::string args = c["args"].get<std::string>();
    args.replace(args.find("{input}"), 7, input);
    Outcome r = w.run(args);
    EXPECT_EQ(r.exit_code, c["exit"].get<int>()) << what << "\n" << r.err;
    EXPECT_LE(r.err.size(), kMaxStderr) << what;
    std::string expected = c.value("stderr", std::string());
    EXPECT_NE(r.err.find(expected), std::string::npos) << what << "\n" << r.err;
    expect_only_outputs(w, input, what);
    for (const auto& path : c.value("absent", nlohmann::json::array())) {
      std::string p = path.get<std::string>();
      EXPECT_FALSE(fs::exists(p.starts_with("/") ? fs::path(p) : w.dir() / p)) << what << ": " << p;
    }
    std::string site = site_text(w);
    for (const auto& s : c.value("site_lacks", nlohmann::json::array()))
      EXPECT_EQ(site.find(s.get<std::string>()), std::string::npos) << what << ": " << s;
    for (const auto& s : c.value("site_has", nlohmann::json::array()))
      EXPECT_NE(site.find(s.get<std::string>()), std::string::npos) << what << ": " << s;
    if (c.contains("max_output_bytes")) {
      EXPECT_LE(bytes_under(w.dir() / "out"), c["max_output_bytes"].get<uintmax_t>()) << what;
    }
  }
}

std::string glog_record(const std::string& name, const std::string& payload) {
  std::string line = "V1206 15:18:21.105000 1500233 torch/x.py:1] {\"artifact\": {\"name\": \"" +
                     name +
                     "\", \"encoding\": \"json\"}, \"frame_id\": 0, \"frame_compile_id\": 0, "
                     "\"attempt\": 0, \"has_payload\": \"00000000000000000000000000000000\"}\n\t";
  return line + payload + "\n";
}

TEST(UntrustedFiles, DeeplyNestedJsonIsShownAsTextNotRecursedInto) {
  // 65,000 deep once overflowed the page writer's stack; 20,000 deep made a 764 MB site.
  for (size_t depth : {20000u, 65000u, 100000u}) {
    Work w;
    std::ofstream(w.dir() / "deep.log")
        << glog_record("deep", std::string(depth, '[') + std::string(depth, ']'));
    Outcome r = w.run("report deep.log -o out");
    EXPECT_EQ(r.exit_code, 0) << depth << r.err;
    EXPECT_LT(bytes_under(w.dir() / "out"), 16 * depth + (1u << 20)) << depth;
  }
  // A graph file nested as deep: a clear error.
  Work w;
  std::ofstream(w.dir() / "deep.json")
      << "{\"nodes\": " << std::string(100000, '[') << std::string(100000, ']') << "}";
  Outcome r = w.run("partition deep.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("too deep"), std::string::npos) << r.err;
  EXPECT_LE(r.err.size(), kMaxStderr);
}

TEST(UntrustedFiles, DeepBracketsInReadableTextAreAnError) {
  Work w;
  std::ofstream(w.dir() / "deep.txt")
      << "class M(torch.nn.Module):\n    def forward(self, x: "
         "\"f32[4]\"):\n        y = "
      << std::string(100000, '(') << "x" << std::string(100000, ')') << "\n        return (y,)\n";
  Outcome r = w.run("print deep.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nested too deeply"), std::string::npos) << r.err;
  EXPECT_LE(r.err.size(), kMaxStderr);
}

TEST(UntrustedFiles, AnErrorOnALongLineShowsAnExcerpt) {
  // What json.dumps writes: one line. A syntax error in it prints ~120 bytes of it, not all.
  Work w;
  std::string joint = slurp(remat::testing::data_path("torch-1.13/mlp_relu_joint.json"));
  std::string line;
  for (char c : joint)
    if (c != '\n') line += c;
  std::string padded = line.substr(0, line.size() - 1) + ", \"pad\": \"" +
                       std::string(200000, 'x') + "\", \"bad\": [}" + "}";
  std::ofstream(w.dir() / "one_line.json") << padded;
  Outcome r = w.run("partition one_line.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_LE(r.err.size(), 1024u) << r.err.substr(0, 300);
  EXPECT_NE(r.err.find("..."), std::string::npos) << r.err;
}

TEST(UntrustedFiles, RankNumbersBeyondIntAreRefused) {
  Work w;
  fs::create_directories(w.dir() / "logs");
  std::ofstream(w.dir() / "logs" / "dedicated_log_torch_trace_rank_99999999999.log") << "";
  Outcome r = w.run("report logs --all-ranks-html -o out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not a rank number"), std::string::npos) << r.err;
}

TEST(UntrustedFiles, OverwriteNeverDeletesWhatRematDidNotWrite) {
  std::string log = remat::testing::data_path("tlparse-logs/simple.log");
  Work w;
  fs::copy_file(log, w.dir() / "simple.log");
  std::ofstream(w.dir() / "notes.txt") << "the user's";
  // The current folder, a folder above it, the folder that holds the input: never.
  for (const std::string& out : {std::string("."), std::string(".."), std::string("./")}) {
    Outcome r = w.run("report simple.log -o " + out + " --overwrite");
    EXPECT_EQ(r.exit_code, 2) << out;
    EXPECT_NE(r.err.find("is the current folder or holds it"), std::string::npos) << r.err;
  }
  fs::create_directories(w.dir() / "logs");
  fs::copy_file(log, w.dir() / "logs" / "simple.log");
  Outcome held = w.run("report logs/simple.log -o logs --overwrite");
  EXPECT_EQ(held.exit_code, 2);
  EXPECT_NE(held.err.find("holds the input"), std::string::npos) << held.err;
  EXPECT_TRUE(fs::exists(w.dir() / "notes.txt"));
  EXPECT_TRUE(fs::exists(w.dir() / "logs" / "simple.log"));
  // A symbolic link as the output folder is not written through.
  fs::create_directories(w.dir() / "elsewhere");
  fs::create_directory_symlink(w.dir() / "elsewhere", w.dir() / "link");
  Outcome linked = w.run("report simple.log -o link");
  EXPECT_EQ(linked.exit_code, 2);
  EXPECT_NE(linked.err.find("symbolic link"), std::string::npos) << linked.err;
  EXPECT_TRUE(fs::is_empty(w.dir() / "elsewhere"));
}

TEST(UntrustedFiles, AKilledRunLeavesThePreviousOutputAndNoLitter) {
  std::string log = remat::testing::data_path("tlparse-logs/simple.log");
  Work w;
  ASSERT_EQ(w.run("report " + log + " -o out").exit_code, 0);
  std::string before = slurp(w.dir() / "out" / "index.html");
  // What a run killed with -9 leaves: its staging folder and a lock file nobody holds.
  fs::create_directories(w.dir() / ".out.remat-staging-999999" / "-_0_0_0");
  std::ofstream(w.dir() / ".out.remat-staging-999999" / "index.html") << "half";
  std::ofstream(w.dir() / ".out.remat-lock") << "";
  std::ofstream(w.dir() / "out.remat-tmp-12345") << "";  // remat before 0.1
  EXPECT_EQ(slurp(w.dir() / "out" / "index.html"), before);
  Outcome again = w.run("report " + log + " -o out --overwrite");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  std::set<std::string> top;
  for (const auto& e : fs::directory_iterator(w.dir())) top.insert(e.path().filename().string());
  EXPECT_EQ(top, std::set<std::string>({"out"}));
  EXPECT_TRUE(fs::exists(w.dir() / "out" / ".remat-output"));
}

TEST(UntrustedFiles, TwoRunsIntoOneFolderOneWinsWholeTheOtherIsRefused) {
  std::string log = remat::testing::data_path("tlparse-logs/simple.log");
  Work w;
  // One run holds the folder's lock (as a running report does); the other is refused.
  std::string dir = "'" + w.dir().string() + "'";
  std::string both = "(cd " + dir + " && flock .out.remat-lock sleep 3) & sleep 0.5; cd " + dir +
                     " && " + REMAT_EXE + " report " + log +
                     " -o out >/dev/null 2>err.txt; echo $? >code.txt; wait";
  ASSERT_EQ(std::system(both.c_str()), 0);
  EXPECT_EQ(slurp(w.dir() / "code.txt"), "2\n");
  EXPECT_NE(slurp(w.dir() / "err.txt").find("another remat is writing this folder now"),
            std::string::npos)
      << slurp(w.dir() / "err.txt");
  EXPECT_FALSE(fs::exists(w.dir() / "out"));
}

}  // namespace
