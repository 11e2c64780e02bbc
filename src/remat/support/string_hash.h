// Transparent string hashing, so hash containers keyed by std::string accept std::string_view.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace remat {

/// Hash for std::string / std::string_view keys with heterogeneous lookup (Debian's abseil
/// uses its own string_view type, so absl's default string hash does not take std's).
struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
};

struct StringViewEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return a == b; }
};

}  // namespace remat
