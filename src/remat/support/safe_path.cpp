#include "remat/support/safe_path.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace remat {
namespace {

constexpr size_t kMaxStem = 80;

bool safe_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// FNV-1a: stable across platforms and runs, unlike std::hash, so a report's file names are too.
uint32_t stable_hash(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return static_cast<uint32_t>(h ^ (h >> 32));
}

}  // namespace

std::string safe_file_stem(std::string_view name) {
  std::string out;
  out.reserve(std::min(name.size(), kMaxStem) + 9);
  for (char c : name) {
    if (out.size() == kMaxStem) break;
    out += safe_byte(c) ? c : '_';
  }
  bool changed = out.size() != name.size() || out != name;
  if (out.empty() || out.front() == '.') {
    out.insert(out.begin(), '_');
    changed = true;
  }
  if (changed) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "-%08x", stable_hash(name));
    out += suffix;
  }
  return out;
}

bool is_safe_relative_path(std::string_view rel) {
  if (rel.empty()) return false;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    if (slash == std::string_view::npos) slash = rel.size();
    std::string_view part = rel.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    for (char c : part)
      if (!safe_byte(c)) return false;
    start = slash + 1;
  }
  return true;
}

}  // namespace remat
