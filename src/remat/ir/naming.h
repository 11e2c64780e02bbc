// Namespace: torch.fx's unique-name rules (`add`, `add_1`, builtins start at `_1`).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace remat {

/// True for Python keywords, names in `builtins` and torch.fx's custom builtins
/// (`inf`, `nan`, `NoneType`, `torch`, `device`, `fx_pytree`, `pytree`).
bool is_reserved_python_name(std::string_view name);

/// torch.fx's candidate name for a target (`Graph._target_to_str`): for a callable, the op name
/// (`aten.add.Tensor` -> `add`, `operator.getitem` -> `getitem`); for a string target the string
/// itself; then dunders stripped and camelCase turned into snake_case.
std::string name_candidate_for_target(std::string_view target, bool callable);

/// A set of unique names built by torch.fx's `_Namespace.create_name` rules (fx-readable §2.4).
/// Names, once handed out, stay taken (torch.fx never frees a name).
class Namespace {
 public:
  /// A unique name derived from `candidate`.
  std::string create_name(std::string_view candidate);
  /// Records `name` as taken exactly as given (an existing graph's names); false if taken.
  bool reserve(std::string_view name);
  [[nodiscard]] bool contains(std::string_view name) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>()(s);
    }
  };
  std::unordered_set<std::string, Hash, std::equal_to<>> used_;
  std::unordered_map<std::string, long long, Hash, std::equal_to<>> base_count_;
};

}  // namespace remat
