#include "remat/support/interned_string.h"

#include <mutex>
#include <unordered_set>

namespace remat {
namespace {

struct TransparentHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
};

struct Pool {
  std::mutex mutex;
  // Node-based container: element addresses are stable, so handles stay valid forever.
  std::unordered_set<std::string, TransparentHash, std::equal_to<>> strings;
};

Pool& pool() {
  static Pool* instance = new Pool();  // never destroyed: handles may outlive static destructors
  return *instance;
}

const std::string kEmpty;

}  // namespace

InternedString::InternedString(std::string_view text) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  auto it = p.strings.find(text);
  if (it == p.strings.end()) it = p.strings.emplace(text).first;
  text_ = &*it;
}

const std::string& InternedString::str() const {
  return text_ ? *text_ : kEmpty;
}

}  // namespace remat
