// Fuzz target for the partition record's reader (records::read_partition_record).
// Property: any input is either rejected with a diagnostic or read; what is read writes out to
// text that reads back and writes out identically.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "remat/records/partition_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  remat::Expected<remat::records::PartitionRecord> record =
      remat::records::read_partition_record(text, "fuzz.json");
  if (!record) {
    if (record.errors().empty() || record.errors()[0].message.empty()) std::abort();
    return 0;
  }
  std::string first = record->json();
  remat::Expected<remat::records::PartitionRecord> again =
      remat::records::read_partition_record(first, "fuzz.json");
  if (!again) {
    std::fprintf(stderr, "written record does not read back: %s\n%s\n",
                 remat::format_all(again.errors()).c_str(), first.c_str());
    std::abort();
  }
  if (again->json() != first) {
    std::fprintf(stderr, "second write differs from the first\n");
    std::abort();
  }
  return 0;
}
