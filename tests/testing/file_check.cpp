#include "testing/file_check.h"

#include <optional>

#include "remat/fxtext/text_scan.h"

namespace remat::testing {
namespace {

using fxtext::split_lines;
using fxtext::trim;

// Where a match ended: the output line (0-based) and the column after it.
struct Position {
  size_t line = 0, column = 0;
};

}  // namespace

std::vector<CheckLine> check_lines(std::string_view test, std::vector<std::string>* bad) {
  std::vector<CheckLine> out;
  int number = 0;
  for (std::string_view line : split_lines(test)) {
    ++number;
    std::string_view s = trim(line);
    if (!s.starts_with("# CHECK")) continue;
    s.remove_prefix(2);
    struct Prefix {
      std::string_view text;
      CheckLine::Kind kind;
    };
    bool known = false;
    for (const Prefix& p :
         {Prefix{"CHECK:", CheckLine::Kind::Check}, Prefix{"CHECK-NEXT:", CheckLine::Kind::Next},
          Prefix{"CHECK-SAME:", CheckLine::Kind::Same},
          Prefix{"CHECK-NOT:", CheckLine::Kind::Not}}) {
      if (!s.starts_with(p.text)) continue;
      std::string_view text = trim(s.substr(p.text.size()));
      if (text.empty()) break;
      out.push_back({p.kind, std::string(text), number});
      known = true;
      break;
    }
    if (!known && bad != nullptr)
      bad->push_back("line " + std::to_string(number) + ": not a check line: " + std::string(s));
  }
  return out;
}

std::vector<std::string> file_check(const std::vector<CheckLine>& checks, std::string_view output,
                                    const std::string& file) {
  std::vector<std::string> failures;
  std::vector<std::string_view> lines = split_lines(output);
  auto where = [&](const CheckLine& c, std::string_view kind) {
    return file + ":" + std::to_string(c.line) + ": " + std::string(kind) + ": '" + c.text + "'";
  };
  // The first place at or after `from` where `text` occurs.
  auto find_from = [&](Position from, const std::string& text) -> std::optional<Position> {
    for (size_t l = from.line; l < lines.size(); ++l) {
      size_t start = l == from.line ? from.column : 0;
      if (start > lines[l].size()) continue;
      size_t at = lines[l].find(text, start);
      if (at != std::string_view::npos) return Position{l, at + text.size()};
    }
    return std::nullopt;
  };
  Position at;
  bool matched_once = false;
  std::vector<const CheckLine*> pending_not;
  // CHECK-NOTs hold from the last match up to `until` (the next match's start line, or the end).
  auto settle_nots = [&](Position from, size_t until_line, size_t until_column) {
    for (const CheckLine* n : pending_not) {
      std::optional<Position> hit = find_from(from, n->text);
      if (hit && (hit->line < until_line ||
                  (hit->line == until_line && hit->column - n->text.size() < until_column)))
        failures.push_back(where(*n, "CHECK-NOT") + " found on output line " +
                           std::to_string(hit->line + 1) + ": " + std::string(lines[hit->line]));
    }
    pending_not.clear();
  };
  for (const CheckLine& c : checks) {
    if (c.kind == CheckLine::Kind::Not) {
      pending_not.push_back(&c);
      continue;
    }
    std::optional<Position> hit;
    if (c.kind == CheckLine::Kind::Check) {
      hit = find_from(at, c.text);
      if (!hit) {
        failures.push_back(where(c, "CHECK") + " not found after output line " +
                           std::to_string(at.line + 1));
        return failures;
      }
    } else {
      if (!matched_once) {
        failures.push_back(where(c, c.kind == CheckLine::Kind::Next ? "CHECK-NEXT" : "CHECK-SAME") +
                           " has no match before it");
        return failures;
      }
      size_t l = c.kind == CheckLine::Kind::Next ? at.line + 1 : at.line;
      size_t start = c.kind == CheckLine::Kind::Next ? 0 : at.column;
      size_t found = l < lines.size() && start <= lines[l].size() ? lines[l].find(c.text, start)
                                                                  : std::string_view::npos;
      if (found == std::string_view::npos) {
        std::string seen = l < lines.size() ? std::string(lines[l]) : "(the end of the output)";
        failures.push_back(where(c, c.kind == CheckLine::Kind::Next ? "CHECK-NEXT" : "CHECK-SAME") +
                           " not on output line " + std::to_string(l + 1) + ": " + seen);
        return failures;
      }
      hit = Position{l, found + c.text.size()};
    }
    settle_nots(at, hit->line, hit->column - c.text.size());
    at = *hit;
    matched_once = true;
  }
  settle_nots(at, lines.size(), 0);
  return failures;
}

}  // namespace remat::testing
