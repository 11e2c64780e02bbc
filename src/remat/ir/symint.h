// SymInt: a tensor dimension that is a concrete integer or a symbolic expression such as `s0 + 1`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "remat/support/interned_string.h"

namespace remat {

/// Eight bytes: a concrete value in [-2^62, 2^62) or an interned expression string.
class SymInt {
 public:
  static constexpr int64_t kMin = -(int64_t{1} << 62);
  static constexpr int64_t kMax = (int64_t{1} << 62) - 1;

  SymInt() = default;
  SymInt(int64_t value);  // NOLINT: implicit, dims are usually plain integers
  /// A symbolic dimension, e.g. `s0` or `2*s0 + 1`.
  static SymInt symbolic(std::string_view expression);
  static bool fits(int64_t value) { return value >= kMin && value <= kMax; }

  [[nodiscard]] bool is_symbolic() const { return (bits_ & 1U) != 0; }
  /// The concrete value; asserts when symbolic.
  [[nodiscard]] int64_t value() const;
  /// The expression text; empty when concrete.
  [[nodiscard]] std::string_view expression() const;
  /// `str(dim)` in Python: the integer or the expression.
  [[nodiscard]] std::string to_string() const;
  /// Appends `str(dim)` to `out`.
  void append_to(std::string& out) const;

  friend bool operator==(SymInt a, SymInt b) { return a.bits_ == b.bits_; }
  [[nodiscard]] uint64_t raw_bits() const { return bits_; }

 private:
  uint64_t bits_ = 0;  // concrete: value << 1; symbolic: (const std::string*) | 1
};

/// The dims as Python prints a shape's contents: `4, 4` or `s0, 2*s1`.
std::string join_dims(std::span<const SymInt> dims);
/// Appends join_dims(dims) to `out`.
void append_dims(std::string& out, std::span<const SymInt> dims);

}  // namespace remat
