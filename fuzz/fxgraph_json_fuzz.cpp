// Fuzz target for the fxgraph-json readers (graph, flow network, partition summary).
// Property: any input is either rejected with a diagnostic or read; what is read writes out to
// text that reads back and writes out identically.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "remat/io/fxgraph_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  remat::Expected<remat::FxgraphDocument> doc = remat::read_fxgraph(text, "fuzz.json");
  if (!doc) {
    if (doc.errors().empty() || doc.errors()[0].message.empty()) std::abort();
    return 0;
  }
  std::string first = remat::write_fxgraph(*doc);
  remat::Expected<remat::FxgraphDocument> again = remat::read_fxgraph(first, "fuzz.json");
  if (!again) {
    std::fprintf(stderr, "written text does not read back: %s\n%s\n",
                 remat::format_all(again.errors()).c_str(), first.c_str());
    std::abort();
  }
  if (remat::write_fxgraph(*again) != first) {
    std::fprintf(stderr, "second write differs from the first\n");
    std::abort();
  }
  return 0;
}
