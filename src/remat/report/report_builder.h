// `remat report`: a TORCH_TRACE log (remat's or PyTorch's) as a static site in tlparse's layout
// (docs/spec/trace-log.md §A.7): index.html, compile_directory.json, raw.jsonl, raw.log,
// failures_and_restarts.html, chromium_events.json, per-compile-id folders whose artifacts are
// numbered by one report-wide counter, payloads/ for what no page claims. Beyond tlparse: graph
// pages with checkpoint regions and partition marks, a partition summary per compile id, node
// counts and sizes in the listing, and a footer naming the tool and the command.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "remat/report/what_if.h"
#include "remat/support/expected.h"
#include "remat/tracelog/trace_reader.h"

namespace remat::report {

struct ReportOptions {
  std::string version;       ///< remat's, for the footer
  std::string command_line;  ///< for the footer
  int year = 1970;           ///< glog headers have no year; raw.jsonl's timestamps use this one
  bool plain_text =
      false;  ///< tlparse's `-p`: Inductor's output code as .txt, not a highlighted page
  bool strict_compile_id =
      false;  ///< tlparse's `--strict-compile-id`: records outside a compile are an error
  bool verbose = false;  ///< tlparse's `-v`: each unknown envelope key and bad line on stderr
  /// tlparse's `--export`: torch.export's log; the index leads with what export met (guards it
  /// evaluated, data-dependent expressions, fake kernels) and the exported program.
  bool export_mode = false;
  /// tlparse's `--inductor-provenance`: `provenance_tracking_<compile>.html` per compile that
  /// logged Inductor's node mappings (graphs and code side by side, lines linked).
  bool inductor_provenance = false;
  /// Called now and then while reading: bytes read, file size.
  std::function<void(uint64_t, uint64_t)> progress;
  /// Other partitions of each compile's logged joint graph, for its partition page's "what if"
  /// table (report/what_if.h); none when empty. Called on the writer threads, once per distinct
  /// joint graph.
  WhatIf what_if;
};

/// What one compile's partition saved and recomputed, as the report read it.
struct PartitionSummary {
  std::string compile_id;                 ///< "[0/0]"
  std::map<std::string, uint64_t> saved;  ///< name -> bytes
  std::set<std::string> recomputed;
  std::string source;  ///< "from the remat_partition record", or read off PyTorch's graphs
};

/// Inductor's `inductor_graph_execution` artifacts (one per call of a compiled graph, payload
/// `{"graph": "graph_3"}`): the order the graphs ran in, compared across ranks without keeping
/// the whole sequence.
struct GraphExecutions {
  static constexpr size_t kKept = 10000;  ///< how many are kept, to show where ranks part
  uint64_t count = 0;
  uint64_t digest = 14695981039346656037ull;  ///< FNV-1a of the whole sequence
  std::vector<std::string> first;             ///< the first kKept graphs
  void add(std::string_view graph);
  friend bool operator==(const GraphExecutions& a, const GraphExecutions& b) {
    return a.count == b.count && a.digest == b.digest;
  }
};

struct ReportResult {
  tracelog::TraceStats stats;
  uint64_t fail_parser = 0;              ///< payloads a page could not render
  uint64_t fail_dynamo_guards_json = 0;  ///< dynamo_guards payloads that are not a JSON list
  uint64_t fail_key_conflict = 0;  ///< records left out of raw.jsonl (a key tlparse adds was taken)
  std::vector<std::string> unknown_fields;
  std::vector<std::string> problems;  ///< `line N: what` for the first bad lines
  size_t compile_ids = 0;         ///< compile ids with at least one record (0: "no compile events")
  size_t without_compile_id = 0;  ///< records logged outside any compile (filed under [-/-])
  size_t export_failures = 0;     ///< export mode: rows of the failures table
  std::vector<PartitionSummary> partitions;  ///< compiles with a partition, in log order
  GraphExecutions executions;
  size_t artifacts = 0;
  std::vector<std::string> files;  ///< every file written, relative to the output folder
};

/// A log file from a path that may name a folder of them (TORCH_TRACE=<dir>): the folder's only
/// `*.log`, or with `latest` its newest one.
Expected<std::string> resolve_log(const std::string& path, bool latest);

/// The report of `log_path` in `out_dir`, written completely or not at all: into a sibling
/// temporary folder, renamed at the end. An existing `out_dir` is an error unless `overwrite`
/// (then it is replaced). With `strict`, any bad line is an error naming `file:line`.
Expected<ReportResult> write_report_folder(const std::string& log_path, const std::string& out_dir,
                                           const ReportOptions& options, bool overwrite,
                                           bool strict);

/// Runs `fill` on a staging folder that replaces `out_dir` once `fill` succeeded
/// (support/output_folder.h: whole or not at all, `overwrite` only of remat's own folders, never
/// one that holds `input`).
Status write_whole_folder(const std::string& out_dir, bool overwrite, const std::string& input,
                          const std::function<Status(const std::string&)>& fill);

/// The errors `--strict` (bad lines, with file:line) and `--strict-compile-id` (records outside a
/// compile) make of a report's counts; ok when the log passes.
Status check_strictness(const std::string& log_path, const ReportResult& result, bool strict,
                        bool strict_compile_id);

/// Reads `log_path` and writes the report into `out_dir`, which must exist and be empty.
/// Bad lines are counted, never fatal; only an unreadable log or an unwritable folder is an
/// error.
Expected<ReportResult> write_report(const std::string& log_path, const std::string& out_dir,
                                    const ReportOptions& options);

}  // namespace remat::report
