#include "remat/ir/text_style.h"

#include "remat/support/enum_names.h"

namespace remat {
namespace {

constexpr EnumNames<Dialect, 2> kDialects({"current", "torch-1.13"});

}  // namespace

std::string_view dialect_name(Dialect d) {
  return kDialects.name(d);
}
std::optional<Dialect> parse_dialect(std::string_view name) {
  return kDialects.parse(name);
}

}  // namespace remat
