// Fuzz target for the trace-log reader and the report's graph-text reading. Property: any bytes
// are read to the end without crashing; every line is a record, a payload line or counted; the
// graph pages render whatever text a payload holds.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "remat/report/graph_html.h"
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
  }
  const auto& s = reader->stats();
  if (s.ok != records) std::abort();
  if (reader->bytes_read() != size) std::abort();
  return 0;
}
