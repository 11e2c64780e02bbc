// What one statement of FX graph text calls, and whether the result shares its argument's
// storage: what the report needs to count PyTorch's logged graphs' memory as remat counts its
// own (records::LiveStorage), without parsing the statement into a graph.
#pragma once

#include <string_view>
#include <vector>

namespace remat::fxtext {

struct StatementCall {
  std::string_view target;  ///< `aten.view.default` (no `torch.ops.`), `operator.getitem`
  std::string_view first;   ///< the first argument when it is a name, else empty
};

/// The call of `name[: "annotation"] = RHS[;  a = None]`: `torch.ops.aten.X.Y(a, ...)`,
/// `operator.getitem(a, 0)` or `a[0]` (a getitem). Empty for anything else.
StatementCall statement_call(std::string_view line);

/// The right-hand side of `name[: "annotation"] = RHS[;  a = None]  # comment`, trimmed; empty
/// for a line that assigns nothing.
std::string_view statement_right_hand_side(std::string_view line);

/// The names a statement reads: the identifiers of its right-hand side that are not an op's
/// path (`torch.ops.aten.mm.default`), a keyword argument's name or inside a string.
std::vector<std::string_view> statement_operands(std::string_view line);
/// The same into `out` (cleared first), for a loop over many lines.
void statement_operands(std::string_view line, std::vector<std::string_view>& out);

/// Whether an op's result lives in its first argument's storage, as remat's memory estimate
/// counts it: the view ops of PyTorch's partitioner (`view`, `t`, `expand`, ...), `detach` and
/// `_unsafe_view`. `target` as statement_call gives it. (tests/ops keeps this list equal to the
/// op registry's.)
bool shares_input_storage(std::string_view target);

}  // namespace remat::fxtext
