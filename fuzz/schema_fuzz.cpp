// Fuzz target for the ATen schema parser. Property: any input is rejected with a positioned
// diagnostic, or parsed into a schema that prints back to the input and parses again to the same.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "remat/ops/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  remat::Expected<remat::OpSchema> s = remat::parse_schema(text);
  if (!s) {
    const remat::Diagnostic& d = s.errors()[0];
    if (d.message.empty() || d.col < 1 || static_cast<size_t>(d.col) > text.size() + 1)
      std::abort();
    return 0;
  }
  std::string printed = s->to_string();
  remat::Expected<remat::OpSchema> again = remat::parse_schema(printed);
  if (!again || again->to_string() != printed) {
    std::fprintf(stderr, "schema does not print back stably:\n%s\n%s\n", text.c_str(),
                 printed.c_str());
    std::abort();
  }
  return 0;
}
