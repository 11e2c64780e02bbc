// Trace-log reading and reporting at scale: generates a log of realistic records (graph dumps,
// chromium events, metrics), then reads it with TraceReader and reports it, each in a child
// process so that its peak memory (ru_maxrss) is its own. Prints MB/s and peak RSS.
//   bench_trace_log [--size-mb 1024] [--report-mb 100] [--ranks-mb 1024] [--ranks 4]
//   [--tlparse-mb 300] [--dir /tmp] [--keep 1]
// --keep 1: leave the logs and the multi-rank report in place (the path is printed).
// --ranks-mb: a multi-rank run of that size in all (`--all-ranks-html`), one log per rank.
// --tlparse-mb: a log of that size reported by remat and by the real tlparse (the one on PATH:
// `pip install tlparse==0.4.3`), each into a fresh folder, best of two runs; prints both times,
// what each wrote and the ratio. 0 skips it.
// The log is read right after it is written, so from the page cache: this measures the
// reader's CPU cost, not the disk.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "remat/report/multi_rank.h"
#include "remat/report/report_builder.h"
#include "remat/tracelog/trace_reader.h"
#include "remat/tracelog/trace_writer.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A log of about `mb` megabytes: per compile id a dynamo start, the four graphs of a partitioned
// compile (~100 KB each: Dynamo's graph, the joint, a forward that saves 40 values, a backward
// that recomputes 12 nodes), an artifact, metrics, and chromium events.
std::string generate(const fs::path& dir, uint64_t mb, std::optional<int> rank = std::nullopt) {
  auto w = remat::tracelog::TraceWriter::create(dir.string(), rank);
  if (!w) std::abort();
  const std::string t = "\"f32[64, 64][64, 1]cuda:0\"";
  std::string forward_body, backward_body, saved_params, saved_returns;
  for (int i = 0; i < 1200; ++i) {
    std::string n = std::to_string(i);
    forward_body += "        mm_" + n + ": " + t + " = torch.ops.aten.mm.default(sin_" + n +
                    ", primals_2);  sin_" + n + " = None\n";
    // Every 100th node is recomputed (it keeps its name); the rest are the backward's own.
    std::string out = i % 100 == 0 ? "mm_" + n : "mm_bw_" + n;
    backward_body += "        " + out + ": " + t +
                     " = torch.ops.aten.mm.default(tangents_1, primals_2);  " + out + " = None\n";
    if (i % 30 == 0) {
      saved_params += ", mm_" + n + ": " + t;
      saved_returns += ", mm_" + n;
    }
  }
  const std::string dynamo =
      "def forward(self, L_x_: " + t + "):\n" + forward_body + "        return (mm_1199,)\n";
  const std::string joint =
      "def forward(self, primals, tangents):\n        primals_1: " + t + "; primals_2: " + t +
      "; tangents_1: " + t +
      ";\n        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, "
      "tangents], self._in_spec)\n" +
      forward_body + backward_body +
      "        return pytree.tree_unflatten([mm_1199, mm_bw_1199], self._out_spec)\n";
  const std::string forward = "def forward(self, primals_1: " + t + ", primals_2: " + t + "):\n" +
                              forward_body + "        return (mm_1199" + saved_returns + ")\n";
  const std::string backward = "def forward(self, primals_2: " + t + saved_params +
                               ", tangents_1: " + t + "):\n" + backward_body +
                               "        return (None, mm_bw_1199)\n";
  uint64_t target = mb << 20;
  for (int64_t frame = 0; fs::exists((*w)->path()) && fs::file_size((*w)->path()) < target;
       ++frame) {
    remat::tracelog::CompileId id{std::nullopt, frame, 0, 0};
    (*w)->write(
        "dynamo_start",
        "{\"stack\": " +
            (*w)->stack_json({{"/src/train.py", 10, "main"}, {"/src/model.py", 42, "forward"}}) +
            "}",
        id);
    for (auto [e, graph] : {std::pair{"dynamo_output_graph", &dynamo},
                            {"aot_joint_graph", &joint},
                            {"aot_forward_graph", &forward},
                            {"aot_backward_graph", &backward}})
      (*w)->write(e, "{}", id, *graph);
    (*w)->artifact("fx_graph_cache_miss", "json", id,
                   "{\"key\": \"abc\", \"components\": [1, 2, 3]}");
    for (int i = 0; i < 20; ++i) {
      (*w)->write("chromium_event", "{}", std::nullopt,
                  "{\n\"name\": \"compile\",\n\"ts\": " + std::to_string(frame * 100 + i) +
                      ",\n\"ph\": \"B\"\n}");
    }
    (*w)->write("compilation_metrics",
                "{\"co_name\": \"forward\", \"entire_frame_compile_time_s\": 1.5}", id);
  }
  auto path = (*w)->close();
  if (!path) std::abort();
  return *path;
}

// Runs `work` in a child; returns its wall seconds and peak RSS in MB.
template <class F>
std::pair<double, double> in_child(F work) {
  auto start = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    work();
    std::_Exit(0);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::fprintf(stderr, "child failed\n");
  return {seconds, static_cast<double>(usage.ru_maxrss) / 1024};
}

// Files and bytes under `dir`.
std::pair<uint64_t, uint64_t> tree_size(const fs::path& dir) {
  uint64_t files = 0, bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    ++files;
    bytes += e.file_size();
  }
  return {files, bytes};
}

// remat report and tlparse on the same log, each into a fresh folder: best of two runs each,
// taken in turns, and no folder removed before all four ran. (Removing one right before the next
// run made file creation slow for whoever ran next: an ext4 without a journal, as on this
// machine, skips every inode freed in the last minutes one by one.)
void versus_tlparse(const fs::path& work, uint64_t mb) {
  std::string log = generate(work / "versus", mb);
  double log_mb = static_cast<double>(fs::file_size(log)) / (1 << 20);
  auto tlparse = [&](const fs::path& out) {
    std::freopen("/dev/null", "w", stdout);  // its Stats line
    execlp("tlparse", "tlparse", log.c_str(), "-o", out.c_str(), "--no-browser",
           static_cast<char*>(nullptr));
    std::fprintf(stderr, "tlparse is not on PATH (pip install tlparse==0.4.3)\n");
    std::_Exit(1);
  };
  auto remat_report = [&](const fs::path& out) {
    remat::report::ReportOptions options;
    options.version = "bench";
    if (!remat::report::write_report_folder(log, out.string(), options, false, false))
      std::_Exit(1);
  };
  double tl_s = 1e300, tl_rss = 0, rm_s = 1e300, rm_rss = 0;
  for (int i = 0; i < 2; ++i) {
    std::string n = std::to_string(i);
    auto [t, tr] = in_child([&] { tlparse(work / ("tlparse" + n)); });
    auto [r, rr] = in_child([&] { remat_report(work / ("remat" + n)); });
    tl_s = std::min(tl_s, t);
    tl_rss = std::max(tl_rss, tr);
    rm_s = std::min(rm_s, r);
    rm_rss = std::max(rm_rss, rr);
  }
  std::error_code ec;  // no tlparse on PATH: no folder
  fs::rename(work / "tlparse0", work / "tlparse", ec);
  fs::rename(work / "remat0", work / "remat", ec);
  fs::remove_all(work / "tlparse1");
  fs::remove_all(work / "remat1");
  if (!fs::exists(work / "tlparse")) return;
  auto [tl_files, tl_bytes] = tree_size(work / "tlparse");
  auto [rm_files, rm_bytes] = tree_size(work / "remat");
  std::printf(
      "tlparse 0.4.3: %8.1f MB log in %6.2f s: %7.1f MB/s, peak RSS %6.1f MB, wrote %llu files, "
      "%.1f MB\n",
      log_mb, tl_s, log_mb / tl_s, tl_rss, static_cast<unsigned long long>(tl_files),
      static_cast<double>(tl_bytes) / (1 << 20));
  std::printf(
      "remat report:  %8.1f MB log in %6.2f s: %7.1f MB/s, peak RSS %6.1f MB, wrote %llu files, "
      "%.1f MB\n",
      log_mb, rm_s, log_mb / rm_s, rm_rss, static_cast<unsigned long long>(rm_files),
      static_cast<double>(rm_bytes) / (1 << 20));
  std::printf("remat report is %.2fx tlparse's speed on the same log (>1: faster)\n", tl_s / rm_s);
  fs::remove_all(work / "tlparse");
  fs::remove_all(work / "remat");
  fs::remove_all(work / "versus");
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t size_mb = 1024, report_mb = 100, ranks_mb = 1024, tlparse_mb = 300;
  int ranks = 4;
  bool keep = false;
  fs::path dir = fs::temp_directory_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--size-mb"))
      size_mb = std::stoull(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--report-mb"))
      report_mb = std::stoull(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--ranks-mb"))
      ranks_mb = std::stoull(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--tlparse-mb"))
      tlparse_mb = std::stoull(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--ranks"))
      ranks = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dir"))
      dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--keep"))
      keep = std::strcmp(argv[i + 1], "0") != 0;
  }
  fs::path work = dir / ("remat_bench_trace_log_" + std::to_string(getpid()));
  fs::create_directories(work);

  std::string big = generate(work / "big", size_mb);
  double mb = static_cast<double>(fs::file_size(big)) / (1 << 20);
  auto [read_s, read_rss] = in_child([&] {
    auto reader = remat::tracelog::TraceReader::open(big);
    remat::tracelog::TraceRecord r;
    uint64_t records = 0;
    while ((*reader)->next(r)) ++records;
    if ((*reader)->stats().failures() != 0) std::_Exit(1);
  });
  std::printf("read:   %8.1f MB log in %6.2f s: %7.1f MB/s, peak RSS %6.1f MB\n", mb, read_s,
              mb / read_s, read_rss);

  std::string medium = generate(work / "medium", report_mb);
  double medium_mb = static_cast<double>(fs::file_size(medium)) / (1 << 20);
  auto [report_s, report_rss] = in_child([&] {
    remat::report::ReportOptions options;
    options.version = "bench";
    auto result =
        remat::report::write_report_folder(medium, (work / "report").string(), options, true, true);
    if (!result) std::_Exit(1);
  });
  std::printf("report: %8.1f MB log in %6.2f s: %7.1f MB/s, peak RSS %6.1f MB\n", medium_mb,
              report_s, medium_mb / report_s, report_rss);
  fs::remove_all(work / "report");
  fs::remove_all(work / "medium");

  if (ranks_mb > 0 && ranks > 0) {
    double run_mb = 0;
    for (int rank = 0; rank < ranks; ++rank)
      run_mb +=
          static_cast<double>(fs::file_size(generate(work / "ranks", ranks_mb / ranks, rank))) /
          (1 << 20);
    auto [ranks_s, ranks_rss] = in_child([&] {
      remat::report::ReportOptions options;
      options.version = "bench";
      auto result = remat::report::write_multi_rank_report(
          (work / "ranks").string(), (work / "ranks_report").string(), options, true, true);
      if (!result) std::_Exit(1);
    });
    std::printf("ranks:  %8.1f MB in %d rank logs in %6.2f s: %7.1f MB/s, peak RSS %6.1f MB\n",
                run_mb, ranks, ranks_s, run_mb / ranks_s, ranks_rss);
  }
  if (tlparse_mb > 0) versus_tlparse(work, tlparse_mb);
  if (keep)
    std::printf("kept: %s\n", work.c_str());
  else
    fs::remove_all(work);
  return 0;
}
