#include "remat/ir/text_style.h"

#include <array>
#include <utility>

namespace remat {
namespace {

constexpr std::array<std::pair<TagStyle, std::string_view>, 4> kTagStyles{{
    {TagStyle::Seed, "seed"},
    {TagStyle::Inline2025, "inline-2025"},
    {TagStyle::Inline2026, "inline-2026"},
    {TagStyle::None, "none"},
}};
constexpr std::array<std::pair<Dialect, std::string_view>, 2> kDialects{{
    {Dialect::Current, "current"},
    {Dialect::Torch113, "torch-1.13"},
}};

template <typename E, size_t N>
std::string_view name_in(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "";
}

template <typename E, size_t N>
std::optional<E> value_in(const std::array<std::pair<E, std::string_view>, N>& table,
                          std::string_view name) {
  for (const auto& [v, n] : table)
    if (n == name) return v;
  return std::nullopt;
}

}  // namespace

std::string_view tag_style_name(TagStyle s) {
  return name_in(kTagStyles, s);
}
std::optional<TagStyle> parse_tag_style(std::string_view name) {
  return value_in(kTagStyles, name);
}
std::string_view dialect_name(Dialect d) {
  return name_in(kDialects, d);
}
std::optional<Dialect> parse_dialect(std::string_view name) {
  return value_in(kDialects, name);
}

}  // namespace remat
