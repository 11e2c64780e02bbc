// End-to-end tests of the remat executable: exit codes, messages, files written or not.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "remat/tracelog/trace_reader.h"
#include "remat/tracelog/trace_writer.h"
#include "testing/golden.h"
#include "testing/graph_page.h"

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliRun run(const std::string& args, const std::string& stdin_file = "") {
  // Per-process names: ctest runs the tests of this binary in parallel processes.
  static int counter = 0;
  fs::path dir = fs::temp_directory_path() /
                 ("remat_cli_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  fs::create_directories(dir);
  std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  std::string cmd = std::string(REMAT_EXE) + " " + args + " >" + out + " 2>" + err;
  if (!stdin_file.empty()) cmd += " <" + stdin_file;
  int status = std::system(cmd.c_str());
  CliRun result{WEXITSTATUS(status), slurp_file(out), slurp_file(err)};
  fs::remove_all(dir);
  return result;
}

std::string sample(const std::string& name) {
  return remat::testing::data_path("torch-1.13/" + name);
}

TEST(Cli, HelpAndVersion) {
  CliRun help = run("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("info"), std::string::npos);
  EXPECT_NE(help.out.find("convert"), std::string::npos);
  CliRun version = run("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("remat ", 0), 0U) << version.out;
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run("").exit_code, 2);
  EXPECT_EQ(run("frobnicate").exit_code, 2);
  EXPECT_EQ(run("info").exit_code, 2);
  // A mistyped verb is named, with the nearest verb; a flag given as a verb, with its verb.
  CliRun typo = run("prnt x.txt");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("'prnt' is not a command (did you mean 'print'?)"), std::string::npos)
      << typo.err;
  CliRun flag = run("explain x.json");
  EXPECT_NE(flag.err.find("did you mean 'partition --explain'?"), std::string::npos) << flag.err;
  // An output extension that names no format is not guessed at.
  std::string xyz =
      (fs::temp_directory_path() / ("remat_" + std::to_string(getpid()) + ".xyz")).string();
  CliRun convert = run("convert " + sample("mlp_relu_joint.txt") + " " + xyz);
  EXPECT_EQ(convert.exit_code, 2);
  EXPECT_NE(convert.err.find(xyz + ": error: the extension names no format"), std::string::npos)
      << convert.err;
  EXPECT_FALSE(fs::exists(xyz));
}

// docs/cli.md's table: every verb that reads a file answers each kind of bad input with exit 2
// and `PATH: error: ...` (or `PATH:LINE:COL: error: ...`) naming the path as given, and writes
// nothing. (An empty log is a log with nothing in it: `report` says so and exits 0.)
TEST(Cli, EveryVerbAnswersBadInputTheSameWay) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_bad_input_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "folder");
  std::ofstream(dir / "empty.json").close();
  std::ofstream(dir / "binary.bin") << std::string(
      "\x7f"
      "ELF\0\1\2\3",
      8);
  std::string joint = slurp_file(sample("mlp_relu_joint.json"));
  std::ofstream(dir / "truncated.json") << joint.substr(0, joint.size() / 2);
  std::string text = slurp_file(sample("mlp_relu_joint.txt"));
  std::ofstream(dir / "truncated.txt") << text.substr(0, text.size() / 2);
  const std::vector<std::pair<std::string, std::string>> verbs = {{"info", ""},
                                                                  {"print", ""},
                                                                  {"convert", " OUT.json"},
                                                                  {"flow", ""},
                                                                  {"partition", " -o OUT"},
                                                                  {"report", " -o OUT"},
                                                                  {"check", ""},
                                                                  {"diff", " OUT"},
                                                                  {"policy", " -o OUT"},
                                                                  {"opt", " --passes=dce -o OUT"}};
  for (const char* input :
       {"empty.json", "binary.bin", "folder", "missing.json", "truncated.json", "truncated.txt"}) {
    for (const auto& [verb, rest] : verbs) {
      std::string path = (dir / input).string();
      std::string out = (dir / "out").string();
      std::string args = rest;
      if (size_t at = args.find("OUT"); at != std::string::npos) args.replace(at, 3, out);
      CliRun r = run(verb + " " + path + args);
      std::string what = verb + " " + input + ": " + r.err;
      if (verb == "report" && std::string(input) == "empty.json") {
        EXPECT_EQ(r.exit_code, 0) << what;
        EXPECT_NE(r.err.find("no compile events"), std::string::npos) << what;
        fs::remove_all(out);
        continue;
      }
      EXPECT_EQ(r.exit_code, 2) << what;
      EXPECT_EQ(r.err.rfind(path + ":", 0), 0u) << what;
      EXPECT_NE(r.err.find("error: "), std::string::npos) << what;
      EXPECT_EQ(r.err.find("Success"), std::string::npos) << what;
      EXPECT_EQ(r.err.find(".remat-tmp-"), std::string::npos) << what;
      EXPECT_FALSE(fs::exists(out)) << what << " wrote its output";
      fs::remove_all(out);
    }
  }
  // Output folders: one that holds files is refused by every verb that writes one, unless
  // --overwrite, and --overwrite replaces only a folder remat wrote; a read-only one is named
  // as the user gave it.
  fs::create_directories(dir / "taken");
  std::ofstream(dir / "taken" / "keep.txt") << "a file of the user's";
  std::string taken = (dir / "taken").string(), own = (dir / "own").string();
  for (const std::string& verb :
       {"partition " + sample("mlp_relu_joint.json") + " -o ",
        "report " + remat::testing::data_path("tlparse-logs/simple.log") + " -o ",
        std::string("compile --model mlp --no-check -o ")}) {
    std::string cmd = verb + taken;
    CliRun r = run(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_NE(r.err.find(taken + ": error: already exists (pass --overwrite"), std::string::npos)
        << cmd << ": " << r.err;
    CliRun o = run(cmd + " --overwrite");
    EXPECT_EQ(o.exit_code, 2) << cmd;
    EXPECT_NE(o.err.find(taken + ": error: holds files remat did not write"), std::string::npos)
        << cmd << ": " << o.err;
    EXPECT_TRUE(fs::exists(dir / "taken" / "keep.txt")) << cmd;
    EXPECT_EQ(run(verb + own).exit_code, 0) << verb;
    EXPECT_TRUE(fs::exists(dir / "own" / ".remat-output")) << verb;
    EXPECT_EQ(run(verb + own + " --overwrite").exit_code, 0) << verb;
    fs::remove_all(own);
  }
  if (getuid() != 0) {  // root writes anywhere
    fs::create_directories(dir / "locked");
    fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    std::string inside = (dir / "locked" / "site").string();
    CliRun r =
        run("report " + remat::testing::data_path("tlparse-logs/simple.log") + " -o " + inside);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.rfind(inside + ": error: ", 0), 0u) << r.err;
    fs::permissions(dir / "locked", fs::perms::owner_all);
  }
  fs::remove_all(dir);
}

TEST(Cli, InfoReportsTheSeedJointGraph) {
  CliRun r = run("info " + sample("ckpt_sin_mm_sigmoid_joint.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nodes: 18\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  call_function        14\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("aten.detach.default                  4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tensor bytes: 1088"), std::string::npos) << r.out;
  std::string body = r.out.substr(r.out.find('\n') + 1);  // the first line names the file
  remat::testing::expect_golden("cli/info_ckpt_sin_mm_sigmoid_joint.txt", body);
}

TEST(Cli, InfoOnFlowAndPartitionFiles) {
  CliRun f = run("info " + sample("ckpt_sin_mm_sigmoid_mincut_flow.json"));
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_NE(f.out.find("cut value: 210"), std::string::npos) << f.out;
  CliRun p = run("info " + sample("ckpt_sin_mm_sigmoid_partition.json"));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.out.find("min_cut: 3 saved value(s), 192 bytes"), std::string::npos) << p.out;
}

TEST(Cli, InfoReadsEveryFileRematWrites) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_info_" + std::to_string(getpid()));
  fs::remove_all(dir);
  ASSERT_EQ(
      run("partition " + sample("mlp_relu_joint.json") + " -o " + (dir / "p").string()).exit_code,
      0);
  CliRun report = run("info " + (dir / "p" / "report.json").string());
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("partition report (remat-partition-report/1)"), std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("saved: 3 values, 7168 bytes"), std::string::npos) << report.out;
  for (const char* f : {"forward.json", "backward.json", "forward.txt", "backward.txt"}) {
    EXPECT_EQ(run("info " + (dir / "p" / f).string()).exit_code, 0) << f;
  }
  CliRun log = run("info " + remat::testing::data_path("tlparse-logs/simple.log"));
  ASSERT_EQ(log.exit_code, 0) << log.err;
  EXPECT_NE(log.out.find("TORCH_TRACE log\nrecords: 64 records"), std::string::npos) << log.out;
  EXPECT_NE(log.out.find("dynamo_output_graph"), std::string::npos) << log.out;
  // remat check's result file (what remat compile leaves in graphs/check.json).
  std::string result = (dir / "check.json").string();
  ASSERT_EQ(run("check " + sample("mlp_relu_joint.json") + " --fw " +
                (dir / "p" / "forward.json").string() + " --bw " +
                (dir / "p" / "backward.json").string() + " --result " + result)
                .exit_code,
            0);
  CliRun check = run("info " + result);
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("numeric check result"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("beyond tolerance: 0"), std::string::npos) << check.out;
  fs::remove_all(dir);
}

TEST(Cli, InfoReadsEveryGraphOfALogAndNamesWhatItCannot) {
  // PyTorch 2.13's own log: 24 graphs, all read and printed back.
  CliRun log = run("info " + remat::testing::data_path("torch-2.13/compile_models.log"));
  ASSERT_EQ(log.exit_code, 0) << log.err;
  EXPECT_NE(log.out.find("graphs: 24, 24 read and printed back byte for byte\n"), std::string::npos)
      << log.out;
  // A graph whose line no release prints is named with where it is.
  fs::path dir = fs::temp_directory_path() / ("remat_cli_info_log_" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto writer = remat::tracelog::TraceWriter::create(dir.string());
  ASSERT_TRUE(writer.ok());
  remat::tracelog::CompileId id;
  id.frame_id = 0;
  id.frame_compile_id = 0;
  (*writer)->write("aot_forward_graph", "{}", id,
                   "class GraphModule(torch.nn.Module):\n"
                   "    def forward(self, x: \"f32[4]\"):\n"
                   "        # No stacktrace found for following nodes\n"
                   "        y: \"f32[4]\" = torch.ops.aten.sin.default(x);  x = None\n"
                   "        return (y,)\n");
  (*writer)->write("aot_backward_graph", "{}", id,
                   "class GraphModule(torch.nn.Module):\n"
                   "    def forward(self, x: \"f32[4]\"):\n"
                   "        y: \"f32[4]\" = torch.ops.aten.sin.default(x) +\n"
                   "        return (y,)\n");
  auto path = (*writer)->close();
  ASSERT_TRUE(path.ok());
  CliRun bad = run("info " + *path);
  EXPECT_EQ(bad.exit_code, 0) << bad.err;
  EXPECT_NE(bad.out.find("graphs: 2, 1 read and printed back byte for byte\n"), std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find(":8 (aot_backward_graph):3:53: error: unexpected '+'"), std::string::npos)
      << bad.out;
  fs::remove_all(dir);
}

TEST(Cli, ConvertRoundTripsThroughFilesAndPipes) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_convert_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string w1 = (dir / "w1.json").string(), w2 = (dir / "w2.json").string();
  ASSERT_EQ(run("convert " + sample("mlp_relu_joint.json") + " " + w1).exit_code, 0);
  CliRun piped = run("convert - -", w1);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  ASSERT_EQ(run("convert " + w1 + " " + w2).exit_code, 0);
  EXPECT_EQ(slurp_file(w1), slurp_file(w2));
  EXPECT_EQ(piped.out, slurp_file(w1));
  fs::remove_all(dir);
}

TEST(Cli, PrintReproducesTheSeedExample) {
  std::string seed = remat::testing::tests_dir() + "/golden/io/seed_joint.json";
  CliRun r = run("print " + seed + " --include-stride --include-device --expanded-def");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            slurp_file(remat::testing::tests_dir() + "/golden/print/seed_joint_tlparse.txt"));
  CliRun inline_tags =
      run("print - --include-stride --include-device --expanded-def --tag-style inline-2026", seed);
  ASSERT_EQ(inline_tags.exit_code, 0) << inline_tags.err;
  EXPECT_EQ(inline_tags.out, slurp_file(remat::testing::tests_dir() +
                                        "/golden/print/seed_joint_tlparse_inline-2026.txt"));
  CliRun code = run("print --code " + seed);
  ASSERT_EQ(code.exit_code, 0);
  EXPECT_EQ(code.out.rfind("\n\n\ndef forward(self, primals, tangents):\n", 0), 0U);
  EXPECT_EQ(run("print --tag-style bogus " + seed).exit_code, 2);
}

TEST(Cli, ConvertTextToJsonAndBackGivesTheSameText) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_text_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string seed_txt = remat::testing::tests_dir() + "/golden/print/seed_joint_tlparse.txt";
  std::string json = (dir / "seed.json").string(), txt = (dir / "seed.txt").string();
  ASSERT_EQ(run("convert " + seed_txt + " " + json).exit_code, 0);
  CliRun back =
      run("convert " + json + " " + txt + " --include-stride --include-device --expanded-def");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(slurp_file(txt), slurp_file(seed_txt));
  CliRun info = run("info " + seed_txt);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("graph 'inner_f' (readable text)\nnodes: 16\n"), std::string::npos)
      << info.out;
  CliRun printed = run("print - --include-stride --include-device --expanded-def", seed_txt);
  EXPECT_EQ(printed.out, slurp_file(seed_txt));
  std::string bad = (dir / "bad.txt").string();
  std::ofstream(bad)
      << "class A(torch.nn.Module):\n    def forward(self, x):\n        y = torch.sin(q)\n";
  CliRun err = run("convert " + bad + " " + json + ".2.json");
  EXPECT_EQ(err.exit_code, 2);
  EXPECT_EQ(err.err, bad +
                         ":3:23: error: undefined name 'q'\n          y = torch.sin(q)\n           "
                         "             ^\n");
  EXPECT_FALSE(fs::exists(json + ".2.json"));
  fs::remove_all(dir);
}

TEST(Cli, ConvertKeepsTheEraAndStylePrintsAnyEra) {
  // A 2.5-2.9 Inductor graph (9-column comments, a graph id trailer, no final newline) comes back
  // byte for byte, directly and through JSON; --style prints it by another release's rules.
  fs::path dir = fs::temp_directory_path() / ("remat_cli_era_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string era = remat::testing::tests_dir() +
                    "/golden/print/eras/torch-2.5-2.9__inductor_post_grad_graph_id.txt";
  std::string txt = (dir / "back.txt").string(), json = (dir / "g.json").string();
  ASSERT_EQ(run("convert " + era + " " + txt).exit_code, 0);
  EXPECT_EQ(slurp_file(txt), slurp_file(era));
  ASSERT_EQ(run("convert " + era + " " + json).exit_code, 0);
  EXPECT_NE(slurp_file(json).find("\"deep_comments\": true"), std::string::npos);
  CliRun printed = run("print " + json);
  EXPECT_EQ(printed.out, slurp_file(era) + "\n");
  CliRun current = run("print " + era + " --style seed");
  ASSERT_EQ(current.exit_code, 0) << current.err;
  EXPECT_NE(current.out.find("\n        # File: /tmp/k.py:8"), std::string::npos) << current.out;
  CliRun bad = run("print " + era + " --style torch-3");
  EXPECT_EQ(bad.exit_code, 2);
  fs::remove_all(dir);
}

TEST(Cli, BadInputExitsTwoAndWritesNothing) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_bad_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string bad = (dir / "bad.json").string();
  std::ofstream(bad)
      << R"({"schema": "fxgraph-json/1", "nodes": [{"name": "x", "op": "placeholder", "target": "x"}, {"name": "y", "op": "call_function", "target": "aten.sin.default", "args": [{"node": "z"}]}]})";
  std::string out = (dir / "out.json").string();
  CliRun r = run("convert " + bad + " " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, bad +
                       ": error: at nodes[1].args[0].node: dangling reference to node 'z', which "
                       "the graph does not define\n");
  EXPECT_FALSE(fs::exists(out)) << "a failed convert must not write its output";
  CliRun missing = run("info " + (dir / "nope.json").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Cli, TraceSeedPrintsTheTagLines) {
  CliRun r = run("trace --model seed --include-stride --include-device");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("sin: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.sin.default(x)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# ac_graph_id: 1 - PREFER_RECOMPUTE\n        mm: "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# ac_graph_id: 1 - PREFER_RECOMPUTE\n        sigmoid: "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("seed_model.cpp:12 in gn, code: return sigmoid(matmul(x, y));"),
            std::string::npos)
      << r.out;
}

TEST(Cli, TraceGpt2ShowsOneRegionPerLayer) {
  CliRun r = run("trace --model gpt2 --layers 2 --checkpoint each-layer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# ac_graph_id: 1 - PREFER_RECOMPUTE"), std::string::npos);
  EXPECT_NE(r.out.find("# ac_graph_id: 2 - PREFER_RECOMPUTE"), std::string::npos);
  EXPECT_EQ(r.out.find("# ac_graph_id: 3"), std::string::npos);
  CliRun sac = run("trace --model gpt2 --layers 1 --checkpoint each-layer --policy save-matmuls");
  ASSERT_EQ(sac.exit_code, 0) << sac.err;
  EXPECT_NE(sac.out.find("# ac_graph_id: 1 - MUST_SAVE\n        bmm: "), std::string::npos);
}

TEST(Cli, TraceWritesJsonThatTheOtherVerbsRead) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_trace_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string json = (dir / "mlp.json").string();
  ASSERT_EQ(run("trace --model mlp --layers 3 --checkpoint every:2 -o " + json).exit_code, 0);
  CliRun info = run("info " + json);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  CliRun printed = run("print " + json);
  EXPECT_NE(printed.out.find("# ac_graph_id: 2 - PREFER_RECOMPUTE"), std::string::npos)
      << printed.out;
  fs::remove_all(dir);
}

TEST(Cli, TraceListAndErrors) {
  CliRun list = run("trace --list");
  EXPECT_EQ(list.exit_code, 0);
  for (const char* model : {"seed", "mlp", "gpt2", "convnet", "embed-ce", "save-matmuls"}) {
    EXPECT_NE(list.out.find(model), std::string::npos) << model;
  }
  CliRun unknown = run("trace --model resnet");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown model 'resnet'"), std::string::npos) << unknown.err;
  EXPECT_EQ(run("trace --model gpt2 --checkpoint sometimes").exit_code, 2);
  EXPECT_EQ(run("trace --model gpt2 --checkpoint each-layer --policy save-ops:aten.mm").exit_code,
            2);
  EXPECT_EQ(run("trace --model gpt2 --hidden 30 --heads 4").exit_code, 2);
  // --list shows each model's options at their defaults.
  EXPECT_NE(list.out.find(
                "--layers 2 --batch 2 --seq 8 --hidden 32 --heads 4 --dropout 0 --checkpoint none"),
            std::string::npos)
      << list.out;
}

TEST(Cli, WrongAtenTargetsAreReportedWithTheirLine) {
  // A misspelt overload and a call with too many arguments: print and info warn (and go on),
  // partition and check refuse; every message has file:line.
  fs::path dir = fs::temp_directory_path() / ("remat_cli_targets_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string text = slurp_file(sample("mlp_relu_joint.txt"));
  std::string typo = text, arity = text;
  typo.replace(typo.find("aten.relu.default"), 17, "aten.relu.defualt");
  arity.replace(arity.find("relu.default(addmm)"), 19, "relu.default(addmm, 3)");
  std::ofstream(dir / "typo.txt") << typo;
  std::ofstream(dir / "arity.txt") << arity;
  std::string t = (dir / "typo.txt").string(), a = (dir / "arity.txt").string();
  const std::string typo_message =
      ":8: warning: node relu: unknown overload aten.relu.defualt: aten.relu has default, out";
  for (const char* verb : {"print ", "info "}) {
    CliRun r = run(verb + t);
    EXPECT_EQ(r.exit_code, 0) << verb << r.err;
    EXPECT_NE(r.err.find(t + typo_message), std::string::npos) << verb << r.err;
  }
  CliRun p = run("partition " + t);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.err.find(t + ":8: error: node relu: unknown overload aten.relu.defualt"),
            std::string::npos)
      << p.err;
  CliRun q = run("partition " + a);
  EXPECT_EQ(q.exit_code, 2);
  EXPECT_NE(
      q.err.find(
          a +
          ":8: error: node relu: aten.relu.default: takes 1 positional arguments but 2 were given"),
      std::string::npos)
      << q.err;
#ifdef REMAT_WITH_TORCH
  CliRun c = run("check " + t);
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find(t + ":8: error: node relu"), std::string::npos) << c.err;
#endif
  fs::remove_all(dir);
}

TEST(Cli, OptionsThatDoNotApplyAreErrors) {
  CliRun layers = run("trace --model seed --layers 3");
  EXPECT_EQ(layers.exit_code, 2);
  EXPECT_NE(
      layers.err.find("error: trace: --layers does not apply to model 'seed' (it takes: --device)"),
      std::string::npos)
      << layers.err;
  CliRun heads = run("compile --model mlp --heads 3 -o " +
                     (fs::temp_directory_path() / "remat_cli_never").string());
  EXPECT_EQ(heads.exit_code, 2);
  EXPECT_NE(heads.err.find("--heads does not apply to model 'mlp'"), std::string::npos)
      << heads.err;
  EXPECT_FALSE(fs::exists(fs::temp_directory_path() / "remat_cli_never"));
  for (const char* extra : {"--budget 0.5", "--pareto", "--knapsack greedy", "--dump-passes x"}) {
    CliRun r = run("partition --strategy default " + std::string(extra) + " " +
                   sample("mlp_relu_joint.json"));
    EXPECT_EQ(r.exit_code, 2) << extra;
    EXPECT_NE(r.err.find("applies to --strategy min-cut, not default"), std::string::npos) << r.err;
  }
  EXPECT_EQ(run("trace --model mlp --layers 3 --layer-norm").exit_code, 0);
}

TEST(Cli, TraceJointGivesTheSeedsJointGraph) {
  CliRun r = run("trace --model seed --joint --include-stride --include-device --expanded-def");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"detach_1: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.detach.default(detach);  detach = None",
        "mul: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.mul.Tensor(mm_2, cos);  mm_2 = cos = None",
        "mm_1,  # GradAOTOutput(grad_of=PlainAOTInput(idx=1))"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
}

#ifdef REMAT_WITH_TORCH
TEST(Cli, CheckRunsJointGraphsAndPartitions) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_check_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string joint = (dir / "gpt2_joint.json").string();
  ASSERT_EQ(
      run("trace --model gpt2 --layers 1 --checkpoint each-layer --joint -o " + joint).exit_code,
      0);
  CliRun ok = run("check " + joint);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  // The token ids have no gradient: listed, not counted as a compared value.
  EXPECT_NE(ok.out.find("check: 15 values compared, 0 beyond tolerance (1 None on both sides)"),
            std::string::npos)
      << ok.out;
  CliRun pair =
      run("check " + sample("mlp_relu_joint.json") + " --fw " + sample("mlp_relu_mincut_fw.json") +
          " --bw " + sample("mlp_relu_mincut_bw.json"));
  EXPECT_EQ(pair.exit_code, 0) << pair.out << pair.err;
  // Measured memory: the peak of the real tensors' storage, printed and in the result file.
  std::string result = (dir / "result.json").string();
  CliRun memory =
      run("check " + sample("mlp_relu_joint.json") + " --fw " + sample("mlp_relu_mincut_fw.json") +
          " --bw " + sample("mlp_relu_mincut_bw.json") + " --memory --result " + result);
  EXPECT_EQ(memory.exit_code, 0) << memory.err;
  EXPECT_NE(memory.out.find("memory: measured peak "), std::string::npos) << memory.out;
  EXPECT_NE(slurp_file(result).find("\"measured_peak_bytes\": "), std::string::npos);
  EXPECT_EQ(run("check " + joint + " --memory").exit_code, 2);
  // A wrong partition: the default partition's backward with the min-cut forward.
  CliRun wrong =
      run("check " + sample("mlp_relu_joint.json") + " --fw " + sample("mlp_relu_mincut_fw.json") +
          " --bw " + sample("ckpt_sin_mm_sigmoid_mincut_bw.json"));
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_EQ(run("check " + joint + " --fw " + joint).exit_code, 2);
  EXPECT_NE(run("check --help").out.find("Usage: remat check [OPTIONS] joint"),
            std::string::npos);  // not remat-check
  fs::remove_all(dir);
}

TEST(Cli, CheckRunsGraphsCapturedOnAGpuOnTheCpu) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_check_gpu_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string joint = (dir / "gpu_joint.json").string();
  // gpt2 creates its mask with `ones(..., device=cuda:0)`: the device argument runs on the CPU.
  ASSERT_EQ(run("trace --model gpt2 --layers 1 --device cuda:0 --joint -o " + joint).exit_code, 0);
  ASSERT_NE(slurp_file(joint).find("cuda:0"), std::string::npos);
  CliRun ok = run("check --device cpu " + joint);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("0 beyond tolerance"), std::string::npos) << ok.out;
  EXPECT_EQ(run("check --device cuda " + joint).exit_code, 2);  // this libtorch has no GPU
  // An ATen failure is one line naming the node and the op, exit 2.
  std::ofstream(dir / "bad.txt")
      << "class GraphModule(torch.nn.Module):\n"
         "    def forward(self, primals_1: \"f32[4, 3]\", tangents_1: \"f32[4, 3]\"):\n"
         "        mm: \"f32[4, 3]\" = torch.ops.aten.mm.default(primals_1, primals_1)\n"
         "        return [mm, tangents_1]\n";
  CliRun bad = run("check " + (dir / "bad.txt").string());
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(
      bad.err.find(
          "error: node mm (aten.mm.default): aten::mm: mat1 and mat2 shapes cannot be multiplied"),
      std::string::npos)
      << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  fs::remove_all(dir);
}
#endif

TEST(Cli, FlowReproducesPyTorchsCut) {
  CliRun r = run("flow --json " + sample("ckpt_sin_mm_sigmoid_mincut_flow.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with("{\"cut_value\": 210, \"source_side\": [\"source\", \"primals_1_in\""))
      << r.out;
  CliRun text =
      run("flow " + sample("mlp_relu_mincut_flow.json") + " --algorithm boykov-kolmogorov");
  EXPECT_NE(text.out.find("cut value: 7883\n"), std::string::npos) << text.out;
  EXPECT_NE(
      text.out.find("cut edges (3): primals_5_in->primals_5_out relu_in->relu_out t_2_in->t_2_out"),
      std::string::npos)
      << text.out;
  EXPECT_EQ(run("flow " + sample("mlp_relu_joint.json")).exit_code, 2);
}

TEST(Cli, PartitionWritesGraphsAndAnExplainedReport) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_partition_" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::string flow = (dir / "flow.json").string();
  fs::create_directories(dir);
  CliRun r = run("partition " + sample("mlp_relu_joint.json") + " -o " + (dir / "out").string() +
                 " --explain --dump-flow " + flow);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("partition (min-cut): 3 saved values, 7168 bytes"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("cut value: 7883"), std::string::npos) << r.out;
  for (const char* f : {"forward.json", "backward.json", "forward.txt", "backward.txt",
                        "report.json", "report.txt"}) {
    EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
  }
  std::string report = slurp_file((dir / "out" / "report.json").string());
  EXPECT_NE(report.find("\"saved_bytes_total\": 7168"), std::string::npos) << report;
  CliRun solved = run("flow " + flow);
  EXPECT_NE(solved.out.find("cut value: 7883"), std::string::npos) << solved.out;
  // --dump-passes: the joint after each pass before the cut that changed it, as readable text.
  std::string tagged = (dir / "tagged.json").string();
  ASSERT_EQ(
      run("trace --model gpt2 --layers 2 --checkpoint each-layer --joint -o " + tagged).exit_code,
      0);
  CliRun dumped = run("partition " + tagged + " --dump-passes " + (dir / "passes").string());
  ASSERT_EQ(dumped.exit_code, 0) << dumped.err;
  std::vector<std::string> dumps;
  for (const auto& e : fs::directory_iterator(dir / "passes"))
    dumps.push_back(e.path().filename().string());
  std::sort(dumps.begin(), dumps.end());
  EXPECT_EQ(dumps, std::vector<std::string>{"1-tag-cleanup.txt"});
  EXPECT_NE(slurp_file((dir / "passes" / "1-tag-cleanup.txt").string()).find("MUST_SAVE"),
            std::string::npos);
  CliRun verified = run("partition --verify " + sample("ckpt_sin_mm_sigmoid_joint.json"));
  EXPECT_EQ(verified.exit_code, 0);
  EXPECT_NE(verified.out.find("verify: 0 violations"), std::string::npos) << verified.out;
  CliRun fallback = run("partition --strategy default " + sample("mlp_relu_joint.json"));
  EXPECT_EQ(fallback.exit_code, 0);
  EXPECT_NE(fallback.out.find("partition (default): 3 saved values"), std::string::npos)
      << fallback.out;
  EXPECT_EQ(run("partition --strategy sideways " + sample("mlp_relu_joint.json")).exit_code, 2);
  fs::remove_all(dir);
}

TEST(Cli, PartitionTakesABudgetInBytes) {
  std::string joint = sample("mlp_relu_joint.json");
  CliRun r = run("partition " + joint + " --budget 4KB --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: memory budget 4.0 KB: activation memory"), std::string::npos)
      << r.out;
  // One byte: budget 0 keeps the inputs only, no activation memory.
  CliRun tiny = run("partition " + joint + " --budget 1B --explain");
  EXPECT_EQ(tiny.exit_code, 0) << tiny.err;
  EXPECT_NE(tiny.out.find("activation memory 0 B at budget 0.0000"), std::string::npos) << tiny.out;
  CliRun bad = run("partition " + joint + " --budget 2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("a number without a unit is a fraction"), std::string::npos) << bad.err;
  // 1.13's dropout draws its mask with bernoulli_, outside remat's registry: never recomputed,
  // so even budget 0 keeps 256 B, and a smaller budget is an error for both strategies.
  std::string dropout = sample("dropout_mlp_joint.json");
  for (const char* strategy : {"min-cut", "optimal"}) {
    CliRun none = run("partition " + dropout + " --budget 1B --strategy " + strategy);
    EXPECT_EQ(none.exit_code, 2) << strategy;
    EXPECT_EQ(none.err.rfind(dropout + ": error:", 0), 0u) << none.err;
    EXPECT_NE(none.err.find(strategy == std::string("min-cut")
                                ? "even at budget 0 (the inputs, and what cannot be recomputed) "
                                  "the activation memory is 256 B"
                                : "no partition keeps its activation memory within 1 B"),
              std::string::npos)
        << none.err;
  }
}

TEST(Cli, PartitionFindsTheOptimumWithinABudget) {
  std::string joint = sample("mlp_relu_joint.json");
  fs::path mps =
      fs::temp_directory_path() / ("remat_cli_optimal_" + std::to_string(getpid()) + ".mps");
  CliRun r =
      run("partition " + joint + " --strategy optimal --budget 4KB --time-limit 30 --verify " +
          "--explain --dump-milp " + mps.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("partition (optimal): ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("chosen by: the optimum at this budget"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: budget: 4.0 KB of activation memory"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("HiGHS proved the optimum"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verify: 0 violations"), std::string::npos) << r.out;
  EXPECT_NE(slurp_file(mps.string()).find("ROWS"), std::string::npos);
  fs::remove(mps);
  // The yardstick: --pareto and the page's budget curve add the optimum at each point's memory,
  // never above the min-cut's recompute.
  fs::path page =
      fs::temp_directory_path() / ("remat_cli_optimal_" + std::to_string(getpid()) + ".html");
  CliRun pareto =
      run("partition " + joint + " --strategy optimal --pareto --html " + page.string());
  ASSERT_EQ(pareto.exit_code, 0) << pareto.err;
  EXPECT_NE(pareto.out.find("optimum FLOPs"), std::string::npos) << pareto.out;
  std::istringstream lines(pareto.out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    std::istringstream row(line);
    double budget;
    int64_t activation, saved, flops, values, optimum;
    if (!(row >> budget >> activation >> saved >> flops >> values >> optimum)) continue;
    EXPECT_LE(optimum, flops) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 11) << pareto.out;
  std::string body = slurp_file(page.string());
  EXPECT_NE(body.find("<g id=\"budget-optimum\">"), std::string::npos);
  EXPECT_NE(body.find("this partition (optimal)"), std::string::npos);
  fs::remove(page);
  // The min-cut's knobs are not the optimum's, nor the other way round.
  CliRun knapsack = run("partition " + joint + " --strategy optimal --knapsack greedy");
  EXPECT_EQ(knapsack.exit_code, 2);
  EXPECT_NE(knapsack.err.find("--knapsack applies to --strategy min-cut, not optimal"),
            std::string::npos)
      << knapsack.err;
  CliRun limit = run("partition " + joint + " --time-limit 5");
  EXPECT_EQ(limit.exit_code, 2);
  EXPECT_NE(limit.err.find("--time-limit applies to --strategy optimal, not min-cut"),
            std::string::npos)
      << limit.err;
  CliRun gap = run("partition " + joint + " --gap 1");
  EXPECT_EQ(gap.exit_code, 2);
  EXPECT_NE(gap.err.find("--gap applies to --strategy optimal, not min-cut"), std::string::npos)
      << gap.err;
  EXPECT_EQ(run("partition " + joint + " --strategy optimal --gap 120").exit_code, 2);
  CliRun near = run("partition " + joint + " --strategy optimal --budget 4KB --gap 5 --explain");
  ASSERT_EQ(near.exit_code, 0) << near.err;
  EXPECT_NE(near.out.find("note: integer program: "), std::string::npos) << near.out;
  // Offload as a third choice: a fast link moves saved values to host memory, each marked.
  std::string gpt =
      (fs::temp_directory_path() / ("remat_cli_offload_" + std::to_string(getpid()) + ".json"))
          .string();
  ASSERT_EQ(run("trace --model gpt2 --joint -o " + gpt).exit_code, 0);
  std::string offload_page = gpt + ".html";
  CliRun offload = run("partition " + gpt +
                       " --strategy optimal --budget 0.3 --offload-bandwidth 1TB/s "
                       "--flops-per-second 1T --explain --verify --html " +
                       offload_page);
  ASSERT_EQ(offload.exit_code, 0) << offload.err;
  EXPECT_NE(slurp_file(offload_page).find("<h2>Offloaded to host memory ("), std::string::npos);
  fs::remove(offload_page);
  EXPECT_NE(offload.out.find("offloaded to host memory\n"), std::string::npos) << offload.out;
  EXPECT_NE(offload.out.find("note: offload: "), std::string::npos) << offload.out;
  EXPECT_NE(offload.out.find("bytes  offloaded to host memory: out and back in"),
            std::string::npos);
  EXPECT_EQ(run("partition " + gpt + " --strategy optimal --offload-bandwidth 1TB/s").exit_code,
            2);  // needs --flops-per-second
  CliRun min_cut = run("partition " + gpt + " --offload-bandwidth 1TB/s --flops-per-second 1T");
  EXPECT_EQ(min_cut.exit_code, 2);
  EXPECT_NE(min_cut.err.find("--offload-bandwidth applies to --strategy optimal"),
            std::string::npos)
      << min_cut.err;
  CliRun bad = run("partition " + gpt +
                   " --strategy optimal --offload-bandwidth fast --flops-per-second 1T");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--offload-bandwidth fast: not a transfer rate"), std::string::npos)
      << bad.err;
  fs::remove(gpt);
}

TEST(Cli, DiffShowsWhatChangedFateBetweenTwoPartitions) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_diff_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string joint = sample("mlp_relu_joint.json");
  ASSERT_EQ(run("partition " + joint + " -o " + (dir / "cut").string()).exit_code, 0);
  ASSERT_EQ(run("partition " + joint + " --budget 0 -o " + (dir / "zero").string()).exit_code, 0);
  CliRun r = run("diff " + (dir / "cut" / "report.json").string() + " " +
                 (dir / "zero" / "report.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("after : "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("chosen by the inputs only (memory budget 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("saved activations"), std::string::npos);
  EXPECT_NE(r.out.find("saved -> recomputed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("values changed fate:"), std::string::npos);
  // The same partition twice: nothing changed.
  CliRun same = run("diff " + (dir / "cut" / "report.json").string() + " " +
                    (dir / "cut" / "report.json").string());
  EXPECT_NE(same.out.find("0 values changed fate:"), std::string::npos) << same.out;
  // partition --html --against: the same comparison on the partition's page.
  std::string page = (dir / "page.html").string();
  CliRun html = run("partition " + joint + " --budget 0 --html " + page + " --against " +
                    (dir / "cut" / "report.json").string());
  ASSERT_EQ(html.exit_code, 0) << html.err;
  std::string body = slurp_file(page);
  EXPECT_NE(body.find("<section id=\"against\">"), std::string::npos);
  EXPECT_NE(body.find("<td>saved</td><td>recomputed</td>"), std::string::npos);
  fs::remove(page);
  CliRun no_record = run("partition " + joint + " --html " + page + " --against " + joint);
  EXPECT_EQ(no_record.exit_code, 2);
  EXPECT_FALSE(fs::exists(page));  // nothing half-written
  // A graph file is no partition record: its path, the JSON path, exit 2.
  CliRun bad = run("diff " + joint + " " + (dir / "cut" / "report.json").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind(joint + ": error:", 0), 0u) << bad.err;
  fs::remove_all(dir);
}

TEST(Cli, PolicyMakesPyTorchSaveAPartitionsChoice) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_policy_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string joint = (dir / "joint.json").string();
  ASSERT_EQ(
      run("trace --model gpt2 --checkpoint each-layer --policy save-matmuls --joint -o " + joint)
          .exit_code,
      0);
  // A partition record of the joint: its choice, reproduced exactly.
  ASSERT_EQ(run("partition " + joint + " -o " + (dir / "cut").string()).exit_code, 0);
  std::string module = (dir / "policy.py").string();
  CliRun r = run("policy " + joint + " " + (dir / "cut" / "report.json").string() + " -o " +
                 module + " --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("policy: 2 checkpoint regions, ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("MUST_SAVE aten.addmm.default #0: addmm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PyTorch's min-cut with this policy saves exactly the"), std::string::npos);
  std::string text = slurp_file(module);
  EXPECT_NE(text.find("def context_fn():"), std::string::npos);
  EXPECT_NE(text.find("('aten.addmm.default', 0): ('addmm',),"), std::string::npos);
  // The yardstick on a checkpointed joint: PyTorch's budget 0 recomputes the region
  // boundaries (MUST_SAVE), so no optimum keeps to its memory; that point says none.
  CliRun pareto = run("partition " + joint + " --strategy optimal --pareto");
  ASSERT_EQ(pareto.exit_code, 0) << pareto.err;
  EXPECT_NE(pareto.out.find("  0.00 "), std::string::npos) << pareto.out;
  EXPECT_NE(pareto.out.substr(pareto.out.find("  0.00 ")).find("none\n"), std::string::npos)
      << pareto.out;
  // Chosen on the spot: the optimum within the regions at a byte budget.
  CliRun optimal = run("policy " + joint + " --strategy optimal --budget 64KB -o " + module);
  EXPECT_EQ(optimal.exit_code, 0) << optimal.out << optimal.err;
  // A budget below 1 recomputes values outside the regions, which no policy reaches: exit 1,
  // each named with why (the module is still written: it is the nearest policy).
  fs::remove(module);
  CliRun outside = run("policy " + joint + " --budget 0.5 -o " + module);
  EXPECT_EQ(outside.exit_code, 1) << outside.out << outside.err;
  EXPECT_NE(outside.out.find("outside every checkpoint region"), std::string::npos) << outside.out;
  EXPECT_TRUE(fs::exists(module));
  // A record and a strategy together are a usage error; a joint with no regions is bad input.
  EXPECT_EQ(run("policy " + joint + " " + (dir / "cut" / "report.json").string() +
                " --strategy optimal -o " + module)
                .exit_code,
            2);
  std::string plain = (dir / "plain.json").string();
  ASSERT_EQ(run("trace --model mlp --joint -o " + plain).exit_code, 0);
  fs::remove(module);
  CliRun none = run("policy " + plain + " -o " + module);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err.rfind(plain + ": error: policy: the joint graph has no checkpoint region", 0),
            0u)
      << none.err;
  EXPECT_FALSE(fs::exists(module));
  fs::remove_all(dir);
}

TEST(Cli, PartitionHtmlDrawsThePicturesAndLinksTheJointsLines) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_html_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string joint = (dir / "joint.json").string(), page = (dir / "p.html").string();
  ASSERT_EQ(
      run("trace --model gpt2 --layers 2 --checkpoint each-layer --joint -o " + joint).exit_code,
      0);
  CliRun r = run("partition " + joint + " --budget 0.5 --pareto --html " + page);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // --pareto: eleven budgets, this partition's marked.
  EXPECT_NE(r.out.find("  0.50 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<- this partition"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  1.00 "), std::string::npos) << r.out;
  std::string html = slurp_file(page);
  for (const char* element : {"id=\"memory-timeline\"", "id=\"budget-curve\"", "id=\"region-map\"",
                              "id=\"saved-values\"", "data-chosen=\"5\"", "data-regions=\"2\"",
                              "<polyline", "class=\"gutter\"", "id=\"why-panel\""}) {
    EXPECT_NE(html.find(element), std::string::npos) << element;
  }
  // The pictures and tables link to the joint graph's lines on the same page.
  // (The browser anchors each line: L1, L2, ...; these links go to lines that define a node.)
  size_t link = html.find("<a href=\"#L");
  ASSERT_NE(link, std::string::npos);
  size_t line = std::stoul(html.substr(link + 11, html.find('"', link + 11) - link - 11));
  auto joint_page = remat::testing::read_graph_page(html);
  ASSERT_TRUE(joint_page);
  EXPECT_TRUE(joint_page->node_of_line.contains(line - 1)) << line;
  // The page's peak is the report's estimate.
  CliRun explained = run("partition " + joint + " --budget 0.5 --explain");
  std::string estimate = "peak memory estimate (forward, then backward): ";
  size_t at = explained.out.find(estimate);
  ASSERT_NE(at, std::string::npos);
  std::string bytes = explained.out.substr(
      at + estimate.size(), explained.out.find(' ', at + estimate.size()) - at - estimate.size());
  EXPECT_NE(html.find("data-peak-bytes=\"" + bytes + "\""), std::string::npos) << bytes;
  // A page that cannot be written is an error that names it.
  CliRun bad = run("partition " + joint + " --html " + (dir / "no" / "such" / "p.html").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("p.html"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

TEST(Cli, OutputFolderThatCannotBeCreatedNamesTheCause) {
  // (A file where a folder must go: root, as CI runs, ignores read-only folders.)
  fs::path dir = fs::temp_directory_path() / ("remat_cli_folder_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "file") << "x";
  std::string inside = (dir / "file" / "out").string();
  CliRun p = run("partition " + sample("mlp_relu_joint.json") + " -o " + inside);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.err.find(inside + ": error: cannot create the folder: Not a directory"),
            std::string::npos)
      << p.err;
  CliRun c = run("compile --model mlp --no-check -o " + inside);
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("cannot create the folder: Not a directory"), std::string::npos) << c.err;
  fs::remove_all(dir);
}

TEST(Cli, PartitionRefusesGraphsThatAreNotJoint) {
  // A forward graph (no tangents) has nothing to split: exit 2 with the reason, for both
  // strategies.
  for (const char* strategy : {"min-cut", "default"}) {
    CliRun r = run(std::string("partition --strategy ") + strategy + " " +
                   sample("mlp_relu_default_fw.json"));
    EXPECT_EQ(r.exit_code, 2) << strategy << r.out;
    EXPECT_NE(r.err.find("mlp_relu_default_fw.json: error: not a joint graph: no tangents_* input"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(Cli, PartitionVerifyHoldsAtEveryBudgetStage) {
  // Budgets down to 0 walk the memory budget's stages (relaxed bans, knapsack, inputs and
  // MUST_SAVE, inputs only); the report names the stage and --verify finds nothing wrong.
  std::string joint = sample("norm_stack_joint.json");
  for (const char* budget : {"1", "0.5", "0.1", "0.01", "0"}) {
    CliRun r = run(std::string("partition --verify --explain --budget ") + budget + " " + joint);
    EXPECT_EQ(r.exit_code, 0) << budget << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("verify: 0 violations"), std::string::npos) << budget << "\n" << r.out;
    EXPECT_NE(r.out.find("chosen by: "), std::string::npos) << r.out;
  }
  EXPECT_NE(run("partition --explain --budget 0 " + joint)
                .out.find("chosen by: the inputs only (memory budget 0)"),
            std::string::npos);
}

// The graph verbs take a TORCH_TRACE log: the joint graph PyTorch logged for --compile.
TEST(LoggedCompile, GraphVerbsReadAJointGraphPyTorchLogged) {
  std::string log = remat::testing::data_path("torch-2.13/compile_models.log");
  // Six compiles: without --compile, they are listed (stderr) and the verb asks for one.
  CliRun several = run("partition " + log);
  EXPECT_EQ(several.exit_code, 2);
  EXPECT_NE(several.err.find("holds 6 compiles with a joint graph:\n  --compile 0/0      a joint "
                             "graph of 121 nodes (14 KB), line 301\n"),
            std::string::npos)
      << several.err;
  EXPECT_NE(several.err.find("error: pick one of the compiles above with --compile"),
            std::string::npos);
  CliRun unknown = run("partition " + log + " --compile 9/9");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no compile 9/9 with a joint graph in the log"), std::string::npos);
  // The compile's joint is the graph: the same partition as of its text in a file.
  fs::path dir = fs::temp_directory_path() / ("remat_cli_logged_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto reader = remat::tracelog::TraceReader::open(log);
  ASSERT_TRUE(reader.ok());
  remat::tracelog::TraceRecord r;
  std::string joint_3;
  while ((*reader)->next(r)) {
    if (r.event == "aot_joint_graph" && r.compile_id && r.compile_id->frame_id == 3)
      joint_3 = r.payload;
  }
  ASSERT_FALSE(joint_3.empty());
  std::ofstream(dir / "joint_3.txt") << joint_3 << "\n";
  // The log says more than the joint's text: which inputs are parameters (Dynamo's graph names
  // them), whose lifetime is the model's, so that the min-cut recomputes a view of one (t_1 = the
  // weight transposed) rather than save it, as PyTorch did in that run.
  CliRun from_log = run("partition " + log + " --compile '[3/0]' --explain");
  CliRun from_file = run("partition " + (dir / "joint_3.txt").string() + " --explain");
  ASSERT_EQ(from_log.exit_code, 0) << from_log.err;
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_NE(from_log.out.find("  t_1                      aten.t.default"), std::string::npos)
      << from_log.out;
  EXPECT_EQ(from_file.out.find("  t_1                      aten.t.default"), std::string::npos);
  CliRun optimal = run("partition " + log + " --compile 3/0 --strategy optimal --budget 0.5");
  EXPECT_EQ(optimal.exit_code, 0) << optimal.err;
  EXPECT_NE(optimal.out.find("partition (optimal"), std::string::npos) << optimal.out;
  CliRun policy = run("policy " + log + " --compile 3/0 --strategy optimal --budget 0.5 -o " +
                      (dir / "policy.py").string());
  EXPECT_EQ(policy.exit_code, 0) << policy.err;
  EXPECT_TRUE(fs::exists(dir / "policy.py"));
  CliRun printed = run("print " + log + " --compile 3/0");
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out, joint_3 + "\n");  // read and printed back byte for byte
  // --compile is for a log only.
  CliRun not_a_log = run("partition " + (dir / "joint_3.txt").string() + " --compile 3/0");
  EXPECT_EQ(not_a_log.exit_code, 2);
  EXPECT_NE(not_a_log.err.find("--compile picks a compile of a TORCH_TRACE log"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(LoggedCompile, ALogWithOneJointNeedsNoCompileAndItsErrorsPointIntoTheLog) {
  fs::path dir = fs::temp_directory_path() / ("remat_cli_logged_one_" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto writer = remat::tracelog::TraceWriter::create((dir / "good").string());
  ASSERT_TRUE(writer.ok());
  remat::tracelog::CompileId id;
  id.frame_id = 2;
  id.frame_compile_id = 0;
  const std::string joint =
      "class joint_helper(torch.nn.Module):\n"
      "    def forward(self, primals_1: \"f32[4]\", tangents_1: \"f32[4]\"):\n"
      "        sin: \"f32[4]\" = torch.ops.aten.sin.default(primals_1)\n"
      "        cos: \"f32[4]\" = torch.ops.aten.cos.default(primals_1);  primals_1 = None\n"
      "        mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(tangents_1, cos);  tangents_1 = cos = "
      "None\n"
      "        return (sin, mul)\n";
  (*writer)->write("aot_joint_graph", "{}", id, joint);
  auto good = (*writer)->close();
  ASSERT_TRUE(good.ok());
  CliRun one = run("partition " + *good);
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("partition (min-cut): "), std::string::npos) << one.out;
  // A joint graph remat cannot read: the error names the log's line and column.
  auto bad_writer = remat::tracelog::TraceWriter::create((dir / "bad").string());
  ASSERT_TRUE(bad_writer.ok());
  (*bad_writer)->write("dynamo_start", "{}", id);
  std::string broken = joint;
  broken.replace(broken.find("torch.ops.aten.cos.default(primals_1)"), 37,
                 "torch.ops.aten.cos.default(primals_1");
  (*bad_writer)->write("aot_joint_graph", "{}", id, broken);
  auto bad = (*bad_writer)->close();
  ASSERT_TRUE(bad.ok());
  CliRun error = run("partition " + *bad);
  EXPECT_EQ(error.exit_code, 2);
  // The header is line 2 (after dynamo_start); the cos statement is the joint's line 4: line 6.
  EXPECT_NE(error.err.find(*bad + ":6:"), std::string::npos) << error.err;
  // Without --compile too, the parameters are read off the compile's Dynamo graph.
  auto reader = remat::tracelog::TraceReader::open(
      remat::testing::data_path("torch-2.13/compile_models.log"));
  ASSERT_TRUE(reader.ok());
  auto copy_writer = remat::tracelog::TraceWriter::create((dir / "copy").string());
  ASSERT_TRUE(copy_writer.ok());
  remat::tracelog::TraceRecord r;
  while ((*reader)->next(r)) {
    if (r.compile_id && r.compile_id->frame_id == 3 &&
        (r.event == "dynamo_output_graph" || r.event == "aot_joint_graph"))
      (*copy_writer)->write(r.event, "{}", id, r.payload);
  }
  auto copy = (*copy_writer)->close();
  ASSERT_TRUE(copy.ok());
  CliRun parameters = run("partition " + *copy + " --explain");
  EXPECT_EQ(parameters.exit_code, 0) << parameters.err;
  EXPECT_NE(parameters.out.find("  t_1                      aten.t.default"), std::string::npos)
      << parameters.out;
  // A log without a joint graph says what to log.
  auto none_writer = remat::tracelog::TraceWriter::create((dir / "none").string());
  ASSERT_TRUE(none_writer.ok());
  (*none_writer)->write("dynamo_start", "{}", id);
  auto none = (*none_writer)->close();
  ASSERT_TRUE(none.ok());
  CliRun empty = run("partition " + *none);
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("the log holds no aot_joint_graph"), std::string::npos) << empty.err;
  fs::remove_all(dir);
}

TEST(LoggedCompile, DiffComparesWhatPyTorchSavedWithRematsChoice) {
  // compile_models.log's compiles were partitioned as PyTorch's min-cut partitions them: remat's
  // min-cut of each logged joint graph saves what the logged forward and backward show,
  // recomputed dropout (its random state saved, run_with_rng_state in the backward) included.
  std::string log = remat::testing::data_path("torch-2.13/compile_models.log");
  for (const char* compile : {"0/0", "0/1", "0/2", "1/0", "2/0"}) {
    CliRun same = run("diff " + log + " --compile " + compile + " --against min-cut");
    ASSERT_EQ(same.exit_code, 0) << same.err;
    EXPECT_NE(same.out.find("before: " + log + " [" + compile + "], what PyTorch saved"),
              std::string::npos)
        << same.out;
    EXPECT_NE(same.out.find("0 values changed fate"), std::string::npos) << compile << "\n"
                                                                         << same.out;
  }
  // 3/0 saves the same; PyTorch's common-subexpression pass merged the two detaches of one value
  // (one a forward output), so its forward computes detach_3 and its backward again, where
  // remat's record has detach_3 computed in the backward only (docs/cli.md). Without the
  // parameters' static lifetime (read off Dynamo's graph) it saved t_2 where PyTorch saved
  // primals_4.
  CliRun several_outputs = run("diff " + log + " --compile 3/0 --against min-cut");
  ASSERT_EQ(several_outputs.exit_code, 0) << several_outputs.err;
  EXPECT_NE(
      several_outputs.out.find("1 value changed fate:\n  detach_3                 recomputed -> "
                               "computed once"),
      std::string::npos)
      << several_outputs.out;
  CliRun optimal = run("diff " + log + " --compile 0/0 --against optimal --budget 0.5");
  ASSERT_EQ(optimal.exit_code, 0) << optimal.err;
  EXPECT_NE(optimal.out.find("after : remat's optimal at budget 0.5 (optimal"), std::string::npos)
      << optimal.out;
  EXPECT_NE(optimal.out.find("activation memory"), std::string::npos);
  // Options that go with a log are refused with two records.
  std::string record = remat::testing::data_path("records/mlp_each_layer.json");
  CliRun records = run("diff " + record + " " + record + " --budget 0.5");
  EXPECT_EQ(records.exit_code, 2);
  EXPECT_NE(records.err.find("--budget goes with a TORCH_TRACE log"), std::string::npos)
      << records.err;
  EXPECT_EQ(run("diff " + record + " " + record).exit_code, 0);
  CliRun second = run("diff " + log + " --compile 0/0 " + record);
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_NE(second.err.find("compared with --against STRATEGY"), std::string::npos) << second.err;
}

TEST(LoggedCompile, ReportPagesAnswerWhatIfFromTheLogAlone) {
  // PyTorch's own log (remat's records of compile_models.log left out): each compile's partition
  // page, read off its graphs, shows PyTorch's knapsack and remat's optimum at other budgets.
  auto reader = remat::tracelog::TraceReader::open(
      remat::testing::data_path("torch-2.13/compile_models.log"));
  ASSERT_TRUE(reader.ok());
  fs::path dir = fs::temp_directory_path() / ("remat_cli_what_if_" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto writer = remat::tracelog::TraceWriter::create((dir / "log").string());
  ASSERT_TRUE(writer.ok());
  remat::tracelog::TraceRecord r;
  while ((*reader)->next(r)) {
    if (!r.compile_id) continue;
    for (const char* e : {"dynamo_output_graph", "aot_joint_graph", "aot_forward_graph",
                          "aot_backward_graph", "compilation_metrics"}) {
      if (r.event == e) (*writer)->write(r.event, r.metadata, *r.compile_id, r.payload);
    }
  }
  auto log = (*writer)->close();
  ASSERT_TRUE(log.ok());
  CliRun report = run("report " + *log + " -o " + (dir / "site").string());
  ASSERT_EQ(report.exit_code, 0) << report.err;
  size_t tables = 0;
  for (const char* compile : {"0_0_0", "0_1_0", "0_2_0", "1_0_0", "2_0_0", "3_0_0"}) {
    std::string page = slurp_file(
        (dir / "site" / ("-_" + std::string(compile)) / "pytorch_partition.html").string());
    size_t table = page.find("<table id=\"what-if-table\">");
    ASSERT_NE(table, std::string::npos) << compile;
    ++tables;
    std::string id = std::string(1, compile[0]) + "/" + compile[2];
    // The knapsack at budget 1 is PyTorch's default partition: what the run saved.
    EXPECT_NE(page.find("<tr><td>PyTorch&#39;s knapsack</td><td class=\"num\">1</td>", table),
              std::string::npos)
        << compile;
    size_t knapsack = page.find("<tr><td>PyTorch&#39;s knapsack</td><td class=\"num\">1</td>");
    EXPECT_NE(page.substr(knapsack, page.find("</tr>", knapsack) - knapsack)
                  .find("<td>none</td><td>none</td>"),
              std::string::npos)
        << compile;
    for (const char* row : {"remat&#39;s optimum</td><td class=\"num\">0.5</td>",
                            "PyTorch&#39;s knapsack</td><td class=\"num\">0.3</td>"})
      EXPECT_NE(page.find(row, table), std::string::npos) << compile << ": " << row;
    // Each row writes its policy with remat policy on the same log.
    EXPECT_NE(page.find("remat policy " + *log + " --compile " + id +
                        " --strategy optimal --budget 0.5 -o policy.py"),
              std::string::npos)
        << compile;
  }
  EXPECT_EQ(tables, 6u);
  // Compiles remat partitioned: the record's page has the table too.
  std::string ours = remat::testing::data_path("torch-2.13/compile_models.log");
  CliRun with_records = run("report " + ours + " -o " + (dir / "ours").string());
  ASSERT_EQ(with_records.exit_code, 0) << with_records.err;
  size_t record_tables = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "ours")) {
    std::string file = e.path().filename().string();
    if (!file.starts_with("remat_partition_") || !file.ends_with(".html")) continue;
    std::string page = slurp_file(e.path().string());
    EXPECT_NE(page.find("<table id=\"what-if-table\">"), std::string::npos) << file;
    EXPECT_NE(page.find("remat policy " + ours + " --compile "), std::string::npos) << file;
    ++record_tables;
  }
  EXPECT_EQ(record_tables, 6u);
  // --what-if-time 0: no tables.
  CliRun without = run("report " + *log + " -o " + (dir / "plain").string() + " --what-if-time 0");
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_EQ(slurp_file((dir / "plain" / "-_0_0_0" / "pytorch_partition.html").string())
                .find("what-if-table"),
            std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
