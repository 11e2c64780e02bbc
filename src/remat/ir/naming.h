// Namespace: torch.fx's unique-name rules (`add`, `add_1`, builtins start at `_1`).
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/functional/function_ref.h>

#include "remat/support/string_hash.h"

#include <optional>
#include <string>
#include <string_view>

namespace remat {

/// True for Python keywords, names in `builtins` and torch.fx's custom builtins
/// (`inf`, `nan`, `NoneType`, `torch`, `device`, `fx_pytree`, `pytree`).
bool is_reserved_python_name(std::string_view name);

/// torch.fx's candidate name for a target (`Graph._target_to_str`): for a callable, the op name
/// (`aten.add.Tensor` -> `add`, `operator.getitem` -> `getitem`); for a string target the string
/// itself; then dunders stripped and camelCase turned into snake_case.
std::string name_candidate_for_target(std::string_view target, bool callable);

/// A name as torch.fx's `_Namespace` reads it: the shortest base, then an optional `_<digits>`
/// suffix (`view_2`: base `view`, digits `2`; `view`: no digits).
struct FxName {
  std::string_view base;
  std::string_view digits;
  /// The suffix's value: 0 with none (the first node of a base), or over 18 digits.
  [[nodiscard]] long long number() const;
};
/// nullopt when `name` is not an identifier.
std::optional<FxName> split_fx_name(std::string_view name);

/// torch.fx's suffix bookkeeping (`_Namespace._base_count`) without the set of taken names,
/// which its owner keeps: a Graph already indexes its nodes by name.
class NameCounter {
 public:
  /// A name derived from `candidate` by `_Namespace.create_name` (docs/spec/readable-text.md §2.4)
  /// that `taken` rejects; the caller records it as taken. `is_that_builtin`: the name is for the
  /// Python builtin of that name itself (the `getattr` function), which may use it.
  std::string create(std::string_view candidate, absl::FunctionRef<bool(std::string_view)> taken,
                     bool is_that_builtin = false);
  /// Updates the counts as create_name would for a name torch.fx produced itself.
  void note(std::string_view name);

 private:
  absl::flat_hash_map<std::string, long long, StringViewHash, StringViewEq> base_count_;
};

/// A set of unique names by torch.fx's rules. Names, once handed out, stay taken.
class Namespace {
 public:
  /// A unique name derived from `candidate` (see NameCounter::create).
  std::string create_name(std::string_view candidate, bool is_that_builtin = false);
  /// Records `name` as taken exactly as given; false if it already was.
  bool reserve(std::string_view name);
  [[nodiscard]] bool contains(std::string_view name) const { return used_.contains(name); }

 private:
  NameCounter counter_;
  absl::flat_hash_set<std::string, StringViewHash, StringViewEq> used_;
};

}  // namespace remat
