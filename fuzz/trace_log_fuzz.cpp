// Fuzz target for the trace-log reader and the report's reading of what a log holds. Property:
// any bytes are read to the end without crashing; every line is a record, a payload line or
// counted; the graph pages render whatever text a payload holds, and so do the partition read
// off graph text, and the partition page with its pictures for any record a payload holds
// (fuzz_partition_record fuzzes the record's reader itself).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "remat/records/partition_record.h"
#include "remat/report/derived_partition.h"
#include "remat/report/graph_html.h"
#include "remat/report/partition_html.h"
#include "remat/tracelog/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::FILE* f = fmemopen(text.data(), text.size(), "rb");
  if (!f) return 0;
  auto reader = remat::tracelog::TraceReader::from_stream(f, size);
  remat::tracelog::TraceRecord r;
  uint64_t records = 0;
  while (reader->next(r)) {
    ++records;
    if (r.lineno == 0 || r.event.size() > size) std::abort();
    remat::report::PartitionMarks marks;
    marks.saved["x"] = 1;
    (void)remat::report::graph_html(r.event, r.payload, &marks, "x.txt");
    std::vector<remat::report::GraphLine> lines = remat::report::graph_lines(r.payload);
    if (!lines.empty()) {
      marks.recomputed.insert(lines.back().name);
      auto derived =
          remat::report::derived_record(marks, {r.payload, &lines}, {r.payload, &lines}, &lines);
      (void)remat::report::partition_page(derived, "[0/0]", nullptr, "");
    }
    if (r.payload.starts_with("{")) {
      auto record = remat::records::read_partition_record(r.payload, "fuzz.json");
      if (record) (void)remat::report::partition_page(*record, "[0/0]", nullptr, "");
    }
  }
  const auto& s = reader->stats();
  if (s.ok != records) std::abort();
  if (reader->bytes_read() != size) std::abort();
  return 0;
}
