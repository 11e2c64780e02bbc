// The glog-style prefix of a trace-log line (docs/spec/trace-log.md §A.4):
// `V1206 15:18:20.253000 1500233 torch/_logging/structured.py:22] {json}`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace remat::tracelog {

struct GlogHeader {
  char level = 'V';  ///< V (debug, always for the trace log), I, W, E, C
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;
  int microsecond = 0;
  uint64_t thread = 0;  ///< the process id PyTorch writes; tlparse calls it thread
  std::string pathname;
  uint64_t lineno = 0;

  /// ISO-8601 with microseconds, in `year` (glog has none): `2026-12-06T15:18:20.253000Z`.
  [[nodiscard]] std::string iso_timestamp(int year) const;
};

/// Parses the prefix; on success `json_start` is where the envelope begins. Accepts exactly what
/// tlparse's regex accepts: level letter, MMDD, HH:MM:SS.ffffff, digits, `path:line] `, one more
/// character at least.
bool parse_glog_header(std::string_view line, GlogHeader& out, size_t& json_start);

/// Whether one of the lines of `head` (the start of a file) has a glog header: what tells a
/// TORCH_TRACE log from any other file before it is read whole.
bool has_glog_line(std::string_view head);

/// The prefix for `h`, ending in `] `.
std::string format_glog_header(const GlogHeader& h);

}  // namespace remat::tracelog
