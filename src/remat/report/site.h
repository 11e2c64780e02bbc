// Site: the report being written, one TORCH_TRACE record at a time: its compile folders and the
// report-wide artifact numbering, the files (written on a second thread), raw.jsonl and the
// chromium events, the stack tries, the failures table, and what export mode collects. The pages
// of each record kind are made by their handlers (report/pages/page_handlers.h); the Site files
// what they write, and at the end writes the site's own pages (index.html, compile_directory.json,
// failures_and_restarts.html, the glossary).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "remat/records/partition_record.h"
#include "remat/report/export_pages.h"
#include "remat/report/graph_html.h"
#include "remat/report/provenance_page.h"
#include "remat/report/report_builder.h"
#include "remat/support/background_writer.h"
#include "remat/support/safe_path.h"
#include "remat/tracelog/trace_reader.h"

namespace remat::report {

using Json = nlohmann::ordered_json;

/// One file in a compile's listing (and compile_directory.json).
struct OutputFile {
  std::string url, name;
  int number = 0;
  std::string suffix;
  std::optional<std::string> readable_url;
  std::string detail;  ///< "25 nodes, 3.2 KB"
};

/// One compile id's folder and what its records left for the pages written at its end.
struct CompileDir {
  std::string key;  ///< "[0/0]", or "[-/-]" for records logged outside a compile
  std::string anchor;
  std::vector<OutputFile> files;
  bool has_metrics = false;
  std::optional<std::string> failure;
  std::vector<std::string> stack;                     ///< frames, outermost first
  std::optional<records::PartitionRecord> partition;  ///< the `remat_partition` artifact
  std::string partition_page;                         ///< its page
  PartitionMarks marks;  ///< filled from `partition` and the forward/backward graphs
  std::vector<GraphLine> forward_lines, backward_lines;  ///< the logged aot_forward/backward graphs
  std::string forward_text, backward_text;               ///< and their text
  std::string dynamo_text;  ///< Dynamo's graph (which inputs are parameters), for "what if"
  /// Without a partition record: the one read off the logged graphs and that page. Both are made
  /// on a writer thread: the record (its charts dropped) may be read once Site::finish has
  /// waited for the writers.
  std::shared_ptr<records::PartitionRecord> derived;
  std::string derived_page;
  /// A digest of its joint graph's text: compiles of the same joint graph get a diff page.
  std::optional<size_t> joint_digest;
  /// What its partition saved and recomputed, once the compile is finished.
  std::optional<PartitionSummary> summary;
  ProvenanceSources provenance;  ///< with --inductor-provenance
  std::string provenance_page;   ///< its page, once written
  /// Whether a record other than a chromium event named this compile (tlparse lists a compile
  /// that only chromium events name, but such a log holds no compile events).
  bool has_records = false;
};

/// A joint graph whose page waits for its compile to finish: the partition marks come from
/// records logged after it (the forward and backward graphs, remat's partition record).
struct PendingJoint {
  size_t dir;
  std::string title, txt, html;
  std::string text;
  std::vector<GraphLine> nodes;
};

struct TrieNode {
  std::vector<std::pair<std::string, std::unique_ptr<TrieNode>>> children;
  std::vector<size_t> compiles;  ///< dirs ending here
  TrieNode* child(const std::string& text);
};

/// One record as a handler sees it.
struct RecordContext {
  const tracelog::TraceRecord& record;
  tracelog::TraceReader& reader;
  size_t dir;          ///< its compile's index in Site::dirs
  std::string folder;  ///< that compile's folder, `-_0_0_0`
  Json meta;           ///< its metadata (not an object when it is no JSON)
  /// The file that holds the payload, when a handler wrote it (raw.jsonl names it); otherwise
  /// the payload goes to payloads/.
  std::optional<std::string> payload_file;
  /// The handler wrote the record's raw.jsonl line itself (export mode's records).
  bool raw_written = false;

  [[nodiscard]] std::string meta_string(const char* key) const;
};

// The glossary of the partitioner's reasons, at the site's root, as the compile folders' pages
// link it.
inline constexpr std::string_view kGlossaryPage = "glossary.html";
inline constexpr std::string_view kGlossaryLink = "../glossary.html";

class Site {
 public:
  Site(std::string out, const ReportOptions& options, std::string log_path, ReportResult& result);

  /// Opens raw.jsonl and chromium_events.json.
  Status open();
  /// Files one record: chromium events, the stack tries, then the first handler that takes it,
  /// then its payload and its raw.jsonl line.
  Status handle(const tracelog::TraceRecord& r, tracelog::TraceReader& reader);
  /// The site's own pages once the log is read; waits for every file to be written.
  Status finish(const tracelog::TraceReader& reader);

  // For the handlers.
  /// Queues `rel` for the writer's thread; a write error is the report's, at the end (finish).
  void write(const std::string& rel, std::string content);
  /// The same with what `render` returns, called on a writer thread: it must own what it reads.
  /// `bytes`: about what it holds.
  void write_rendered(const std::string& rel, std::function<std::string()> render, size_t bytes);
  /// A graph's page, rendered and written on the writer's thread (it gets its own copies).
  void write_graph_page(std::string title, std::string text, std::vector<GraphLine> nodes,
                        std::optional<PartitionMarks> marks, const std::string& txt,
                        const std::string& html);
  /// Writes `rel` and lists it in its compile's folder with the next artifact number.
  void add_file(size_t dir, std::string rel, std::string_view content, std::string detail = {},
                std::optional<std::string> readable = std::nullopt);
  /// `<folder>/<stem>_<N><ext>`: the name the next numbered artifact gets; the stem (the log's
  /// text: an artifact's or event's name) made a safe file name (support/safe_path.h).
  [[nodiscard]] std::string numbered(const std::string& folder, const std::string& stem,
                                     std::string_view ext) const {
    return folder + "/" + safe_file_stem(stem) + "_" + std::to_string(counter) + std::string(ext);
  }
  /// A stack (JSON frames) as `file:line in name` lines, the string table resolved.
  std::vector<std::string> frames_of(std::string_view stack_json, tracelog::TraceReader& reader);
  void raw_jsonl(const tracelog::TraceRecord& r, const std::optional<std::string>& payload_file);
  [[nodiscard]] std::string footer() const;

  const ReportOptions& options;
  ReportResult& result;
  const std::string out;
  const std::string log_path;  ///< for the places errors name (`LOG:LINE`)
  int counter = 0;             ///< the report-wide artifact number
  std::vector<CompileDir> dirs;
  std::vector<PendingJoint> joints;
  std::vector<std::pair<std::string, std::string>> failures;  ///< compile link, cells (HTML)
  TrieNode trie, unknown_trie;
  /// The "what if" tables made so far, by joint graph (with Dynamo's graph and the run's
  /// memory): a log recompiles the same graphs often. Shared with the writer threads that fill it.
  struct WhatIfCache {
    struct Entry {
      std::once_flag once;
      WhatIfTable table;
    };
    std::mutex mutex;
    std::unordered_map<std::string, std::shared_ptr<Entry>> entries;
    /// The table for `request`, made by `make` the first time.
    const WhatIfTable& get(const WhatIfRequest& request, const WhatIf& make);
  };
  std::shared_ptr<WhatIfCache> what_if_cache = std::make_shared<WhatIfCache>();

  // Export mode.
  std::vector<ExportFailure> export_failures;
  SymExprIndex sym_exprs;
  std::string exported_program;

 private:
  size_t dir_for(const tracelog::CompileId& id);
  std::string index_page(const tracelog::TraceReader& reader);
  /// For each compile whose joint graph an earlier compile partitioned too: a page of the two
  /// partitions' differences (records::diff_partitions), listed in `diff_pages_`.
  void write_diff_pages();

  /// (the earlier compile, the later one, the page)
  std::vector<std::tuple<size_t, size_t, std::string>> diff_pages_;

  std::map<std::string, size_t> dir_index_;
  std::ofstream raw_;                     // raw.jsonl records, before the string table is known
  std::ofstream chromium_;                // chromium_events.json
  std::future<std::error_code> raw_log_;  // copying the log to raw.log, from open() on
  size_t chromium_count_ = 0;
  // Pages are created and filled on writer threads while the log is read and the next pages
  // are rendered (a third of the report's time is the kernel's: bench_trace_log).
  BackgroundWriter files_;
};

}  // namespace remat::report
