// Writer of TORCH_TRACE logs (docs/spec/trace-log.md §A.3-A.4), in the file PyTorch would write:
// `<dir>/dedicated_log_torch_trace_<random>.log`, readable by tlparse and by TraceReader.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "remat/support/expected.h"
#include "remat/tracelog/compile_id.h"
#include "remat/tracelog/glog_header.h"

namespace remat::tracelog {

/// One frame of a `stack` (`{"line", "name", "filename"}`; the file name is interned).
struct StackFrame {
  std::string filename;
  int64_t line = 0;
  std::string name;
};

class TraceWriter {
 public:
  /// Creates `dir` if needed and a fresh log file in it. With a `rank`, the file is named as
  /// PyTorch names a rank's log (`dedicated_log_torch_trace_rank_<n>_*.log`) and every record
  /// carries `"rank": n`.
  static Expected<std::unique_ptr<TraceWriter>> create(const std::string& dir,
                                                       std::optional<int> rank = std::nullopt);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }

  /// Where records say they were logged from (the glog header's `path:line`).
  void set_source(std::string pathname, uint64_t line) {
    source_path_ = std::move(pathname);
    source_line_ = line;
  }
  /// The clock for headers; tests pin it.
  void set_clock(std::function<GlogHeader()> clock) { clock_ = std::move(clock); }

  /// `{"<event>": <metadata>, <compile id>, "has_payload": md5}` + payload lines. `metadata` is
  /// JSON text; a record has a payload when `payload` is given (possibly empty).
  void write(std::string_view event, std::string_view metadata, const std::optional<CompileId>& id,
             const std::optional<std::string_view>& payload = std::nullopt);
  /// `artifact {name, encoding}` with its payload; encoding is "string" or "json".
  void artifact(std::string_view name, std::string_view encoding, const CompileId& id,
                std::string_view payload);
  /// A `stack` as JSON, interning each file name (a `str` record the first time one is seen).
  std::string stack_json(const std::vector<StackFrame>& frames);

  /// Flushes and reports any write error.
  Expected<std::string> close();

 private:
  TraceWriter(std::FILE* f, std::string path, std::optional<int> rank);
  int intern(const std::string& filename);
  std::optional<int> rank_;
  void line(std::string_view json, const std::optional<std::string_view>& payload);

  std::FILE* file_;
  std::string path_;
  std::string source_path_ = "remat/tracelog/trace_writer.cpp";
  uint64_t source_line_ = 0;
  std::function<GlogHeader()> clock_;
  absl::flat_hash_map<std::string, int> interned_;
  bool failed_ = false;
};

}  // namespace remat::tracelog
