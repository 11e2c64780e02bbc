#include "remat/fxtext/statement_call.h"

#include <algorithm>
#include <array>

#include "remat/fxtext/text_scan.h"

namespace remat::fxtext {
namespace {

/// The leading identifier of `s`.
std::string_view identifier(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && is_identifier_char(s[n])) ++n;
  return s.substr(0, n);
}

/// Where the ` = ` of `name[: "annotation"] = RHS[;  a = None]` is in the trimmed statement, or
/// npos (a `;` before it: no assignment).
size_t assignment_at(std::string_view stmt) {
  size_t eq = find_outside_quotes(stmt, 0, [&](char c, size_t i, int depth) {
    return depth == 0 && (c == ';' || (c == '=' && i > 0 && stmt[i - 1] == ' ' &&
                                       i + 1 < stmt.size() && stmt[i + 1] == ' '));
  });
  return eq == std::string_view::npos || stmt[eq] == ';' ? std::string_view::npos : eq;
}

/// The right-hand side after the ` = ` at `eq`, up to the next statement or a comment.
std::string_view right_hand_side(std::string_view stmt, size_t eq) {
  size_t semi = find_outside_quotes(
      stmt, eq + 1, [](char c, size_t, int depth) { return depth == 0 && c == ';'; });
  if (semi != std::string_view::npos) stmt = stmt.substr(0, semi);
  std::string_view rhs = trim(stmt.substr(eq + 1));
  if (size_t hash = comment_start(rhs); hash != std::string_view::npos)
    rhs = trim(rhs.substr(0, hash));
  return rhs;
}

}  // namespace

std::string_view statement_right_hand_side(std::string_view line) {
  std::string_view stmt = trim(line);
  size_t eq = assignment_at(stmt);
  return eq == std::string_view::npos ? std::string_view() : right_hand_side(stmt, eq);
}

std::vector<std::string_view> statement_operands(std::string_view line) {
  std::vector<std::string_view> out;
  statement_operands(line, out);
  return out;
}

void statement_operands(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::string_view stmt = trim(line);
  size_t eq = assignment_at(stmt);
  if (eq == std::string_view::npos) return;
  auto take = [&](size_t i, size_t j) {
    std::string_view word = stmt.substr(i, j - i);
    bool path = stmt[i - 1] == '.' || (j < stmt.size() && stmt[j] == '.');
    bool keyword =
        j < stmt.size() && stmt[j] == '=' && (j + 1 == stmt.size() || stmt[j + 1] != '=');
    if (!path && !keyword && !is_digit(word[0])) out.push_back(word);
  };
  // The words outside strings of the right-hand side, each taken where it ends, in one pass: the
  // right-hand side ends at the next top-level `;` or at a comment.
  size_t start = std::string_view::npos;
  find_outside_quotes(stmt, eq + 1, [&](char c, size_t i, int depth) {
    bool end = (c == ';' && depth == 0) || c == '#';
    if (!end && is_identifier_char(c)) {
      if (start == std::string_view::npos) start = i;
    } else if (start != std::string_view::npos) {
      take(start, i);
      start = std::string_view::npos;
    }
    return end;
  });
  if (start != std::string_view::npos) take(start, stmt.size());
}

StatementCall statement_call(std::string_view line) {
  std::string_view stmt = trim(line);
  size_t eq = assignment_at(stmt);
  if (eq == std::string_view::npos) return {};
  // What follows reads the right-hand side up to its first bracket only. When a bracket comes
  // before anything that could end it early (a `;`, a comment, a string), the rest of the line
  // need not be scanned for its end (a report reads every statement of every graph).
  auto special = [](char c) {
    return c == '(' || c == '[' || c == ';' || c == '#' || c == '\'' || c == '"';
  };
  size_t stop = eq + 1;
  while (stop < stmt.size() && !special(stmt[stop])) ++stop;
  std::string_view rhs = stop < stmt.size() && (stmt[stop] == '(' || stmt[stop] == '[')
                             ? trim(stmt.substr(eq + 1))
                             : right_hand_side(stmt, eq);
  if (rhs.empty()) return {};
  constexpr std::string_view kOps = "torch.ops.";
  if (rhs.starts_with(kOps)) rhs.remove_prefix(kOps.size());
  size_t open = rhs.find_first_of("([");
  if (open == std::string_view::npos || open == 0) return {};
  std::string_view callee = rhs.substr(0, open);
  std::string_view first = identifier(trim(rhs.substr(open + 1)));
  if (rhs[open] == '[') {  // `a[0]`
    if (callee != identifier(callee)) return {};
    return {"operator.getitem", callee};
  }
  if (!std::all_of(callee.begin(), callee.end(),
                   [](char c) { return is_identifier_char(c) || c == '.'; }))
    return {};
  // A number is no name: `aten.full.default(2, ...)`.
  if (!first.empty() && first[0] >= '0' && first[0] <= '9') first = {};
  return {callee, first};
}

bool shares_input_storage(std::string_view target) {
  static constexpr std::array<std::string_view, 13> kTargets = {
      "aten._unsafe_view.default", "aten.alias.default",   "aten.detach.default",
      "aten.expand.default",       "aten.permute.default", "aten.select.int",
      "aten.slice.Tensor",         "aten.split.Tensor",    "aten.squeeze.default",
      "aten.squeeze.dim",          "aten.t.default",       "aten.unsqueeze.default",
      "aten.view.default"};
  return std::binary_search(kTargets.begin(), kTargets.end(), target);
}

}  // namespace remat::fxtext
