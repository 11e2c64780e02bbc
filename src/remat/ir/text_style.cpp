#include "remat/ir/text_style.h"

#include "remat/support/enum_names.h"

namespace remat {
namespace {

constexpr EnumNames<TagStyle, 4> kTagStyles({"seed", "inline-2025", "inline-2026", "none"});
constexpr EnumNames<Dialect, 2> kDialects({"current", "torch-1.13"});

}  // namespace

std::string_view tag_style_name(TagStyle s) {
  return kTagStyles.name(s);
}
std::optional<TagStyle> parse_tag_style(std::string_view name) {
  return kTagStyles.parse(name);
}
std::string_view dialect_name(Dialect d) {
  return kDialects.name(d);
}
std::optional<Dialect> parse_dialect(std::string_view name) {
  return kDialects.parse(name);
}

}  // namespace remat
