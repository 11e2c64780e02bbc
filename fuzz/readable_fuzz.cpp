// Fuzz target for the readable-text parser. Property: any input is rejected with a positioned
// diagnostic or read into a graph that verifies, prints, and reads back to the same text, in the
// style it was read in and in remat's default style.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "remat/ir/verify.h"
#include "remat/print/printer.h"
#include "remat/print/readable_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  remat::Expected<remat::GraphModule> m = remat::parse_readable(text, "fuzz.txt");
  if (!m) {
    const remat::Diagnostic& d = m.errors()[0];
    if (d.message.empty() || d.line < 1) std::abort();
    return 0;
  }
  if (!remat::verify(*m).empty()) {
    std::fprintf(stderr, "parsed graph does not verify:\n%s",
                 remat::format_all(remat::verify(*m)).c_str());
    std::abort();
  }
  // Printed in the style it was read in, and in remat's default style: each reads back to a
  // graph that prints the same text again.
  for (const remat::PrintOptions& options :
       {remat::PrintOptions::as_read(*m), remat::PrintOptions()}) {
    std::string printed = remat::print_readable(*m, options).text;
    remat::Expected<remat::GraphModule> again = remat::parse_readable(printed, "fuzz.txt");
    if (!again) {
      std::fprintf(stderr, "printed text does not read back: %s\n%s\n",
                   remat::format_all(again.errors()).c_str(), printed.c_str());
      std::abort();
    }
    if (remat::print_readable(*again, options).text != printed ||
        remat::print_readable(*again, remat::PrintOptions::as_read(*again)).text != printed) {
      std::fprintf(stderr, "second print differs from the first:\n%s\n", printed.c_str());
      std::abort();
    }
  }
  return 0;
}
