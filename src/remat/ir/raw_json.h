// RawJsonFields: metadata keys remat does not interpret, kept verbatim as JSON text.
#pragma once

#include <string>
#include <vector>

namespace remat {

/// One key the reader did not know, with its value as minified JSON text.
struct RawJsonField {
  std::string key;
  std::string json;
  friend bool operator==(const RawJsonField&, const RawJsonField&) = default;
};

/// Unknown keys in the order they were read; written back unchanged so nothing is lost.
using RawJsonFields = std::vector<RawJsonField>;

}  // namespace remat
