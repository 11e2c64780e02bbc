// EnumNames: the text of each value of an enum, for the name / parse pairs that map remat's
// enums to the strings files and PyTorch use (layouts, memory formats, checkpoint policies,
// partitioner tags, op kinds, text styles).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace remat {

/// `names[i]` is the text of the enum's value i: the enum's values are 0..N-1, in order. An
/// empty name (an `Unknown` value) is printed as "" and never parsed.
template <class E, size_t N>
class EnumNames {
 public:
  constexpr explicit EnumNames(std::array<std::string_view, N> names) : names_(names) {}

  [[nodiscard]] constexpr std::string_view name(E value) const {
    return names_[static_cast<size_t>(value)];
  }
  [[nodiscard]] constexpr std::optional<E> parse(std::string_view text) const {
    for (size_t i = 0; i < N; ++i)
      if (!names_[i].empty() && names_[i] == text) return static_cast<E>(i);
    return std::nullopt;
  }

 private:
  std::array<std::string_view, N> names_;
};

}  // namespace remat
