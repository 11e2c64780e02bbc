// Streaming reader of TORCH_TRACE logs (docs/spec/trace-log.md §A.4-A.9): reads a file in
// fixed-size chunks, so memory stays flat however long the log is, and never stops at a bad line:
// each is counted and skipped.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "remat/support/expected.h"
#include "remat/tracelog/md5.h"
#include "remat/tracelog/trace_record.h"

namespace remat::tracelog {

struct TraceStats {
  uint64_t ok = 0;
  uint64_t other_rank = 0;
  uint64_t fail_glog = 0;
  uint64_t fail_json = 0;
  uint64_t fail_payload_md5 = 0;
  uint64_t unknown = 0;  ///< unknown envelope keys (not a failure)
  uint64_t str = 0;      ///< string-table records

  /// What `--strict` refuses: bad glog prefixes, bad JSON, MD5 mismatches, other ranks.
  [[nodiscard]] uint64_t failures() const {
    return fail_glog + fail_json + fail_payload_md5 + other_rank;
  }
  /// tlparse's `Stats { ok: 14, fail_payload_md5: 1 }`: the non-zero counters.
  [[nodiscard]] std::string summary() const;
  /// The same in words, for people: "64 records, 1 payload whose MD5 differs".
  [[nodiscard]] std::string describe() const;
};

class TraceReader {
 public:
  /// Opens `path`; an unreadable file is an error.
  static Expected<std::unique_ptr<TraceReader>> open(const std::string& path);
  /// Reads `file` (closed by the reader), e.g. an fmemopen'd buffer; `size` for progress only.
  static std::unique_ptr<TraceReader> from_stream(std::FILE* file, uint64_t size = 0);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  /// The next usable record; false at the end of the file. `str` records fill the string table
  /// and are not returned; records of another rank than the first one seen are skipped.
  bool next(TraceRecord& record);

  [[nodiscard]] const TraceStats& stats() const { return stats_; }
  /// Interned file names by index (`{"str": [name, index]}`); gaps are nullopt.
  [[nodiscard]] const std::vector<std::optional<std::string>>& string_table() const {
    return strings_;
  }
  [[nodiscard]] uint64_t bytes_read() const { return bytes_read_; }
  [[nodiscard]] uint64_t file_size() const { return file_size_; }
  /// Envelope keys never seen before in this file that no part of the format knows.
  [[nodiscard]] const std::vector<std::string>& unknown_fields() const { return unknown_fields_; }
  /// The first bad lines, as `<line>: <what>` (at most 20).
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }
  /// Lines longer than this are skipped (a bad line each), so memory stays bounded on any input:
  /// 256 MiB by default; tests set less.
  void set_max_line_bytes(size_t bytes) { max_line_ = bytes; }

 private:
  explicit TraceReader(std::FILE* file, uint64_t size);
  // The next non-empty line (without '\n'); valid until the next call. False at the end.
  bool next_line(std::string_view& line);
  bool peek_is_payload();
  // Drops the rest of a line longer than max_line_, up to and with its '\n'.
  void skip_long_line();
  bool fill();
  bool decode_envelope(std::string_view json, TraceRecord& r);

  std::FILE* file_;
  uint64_t file_size_;
  uint64_t bytes_read_ = 0;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;  // unread bytes of buffer_
  bool eof_ = false;
  size_t max_line_ = size_t{256} << 20;
  uint64_t lineno_ = 0;
  std::string carry_;  // a line longer than the buffer
  TraceStats stats_;
  std::vector<std::optional<std::string>> strings_;
  std::optional<std::optional<int64_t>> expected_rank_;
  std::vector<std::string> unknown_fields_;
  std::vector<std::string> problems_;
  void problem(uint64_t line, const char* what);
  Md5 md5_;
  struct Json;
  std::unique_ptr<Json> json_;
};

}  // namespace remat::tracelog
