// InternedString: a process-wide unique copy of a string, compared and hashed by pointer.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace remat {

/// A handle to an immutable string stored once per process. Targets, devices, stack traces and
/// other strings that repeat across nodes are interned so each node carries one pointer.
/// The default value is the null handle, distinct from the interned empty string.
class InternedString {
 public:
  InternedString() = default;
  /// Interns `text` (thread-safe; the storage lives until the process ends).
  explicit InternedString(std::string_view text);

  [[nodiscard]] bool is_null() const { return text_ == nullptr; }
  explicit operator bool() const { return text_ != nullptr; }
  /// The text; the empty string for the null handle.
  [[nodiscard]] const std::string& str() const;
  [[nodiscard]] std::string_view view() const { return str(); }

  friend bool operator==(InternedString a, InternedString b) { return a.text_ == b.text_; }
  [[nodiscard]] size_t hash() const { return std::hash<const void*>()(text_); }

 private:
  const std::string* text_ = nullptr;
};

}  // namespace remat

template <>
struct std::hash<remat::InternedString> {
  size_t operator()(remat::InternedString s) const noexcept { return s.hash(); }
};
