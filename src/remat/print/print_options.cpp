// The named eras of print_readable's text (docs/spec/readable-text.md §10).
#include "remat/print/print_options.h"

#include <array>

namespace remat {
namespace {

struct Era {
  std::string_view name;
  Dialect dialect;
  TagStyle tags;
  bool quoted, names_function, deep_comments, free_dead_results, truncate_annotations;
  bool indent_blank_lines = true;
};

// Newest first. Tags first appeared in Nov 2025 (inline); the seed's own line is remat's, kept
// for 1.13, whose graphs carry no tags unless remat added them.
constexpr std::array<Era, 9> kEras{{
    {"seed", Dialect::Current, TagStyle::Seed, true, true, false, true, true},
    {"current", Dialect::Current, TagStyle::Seed, true, true, false, true, true},
    {"torch-2.13", Dialect::Current, TagStyle::Inline2026, true, true, false, true, true, false},
    {"torch-2026", Dialect::Current, TagStyle::Inline2026, true, true, false, true, true},
    {"torch-2.10", Dialect::Current, TagStyle::Inline2025, true, true, false, true, false},
    {"torch-2.5-2.9", Dialect::Current, TagStyle::None, true, true, true, false, false},
    {"torch-2.4", Dialect::Current, TagStyle::None, true, true, false, false, false},
    {"torch-2.1", Dialect::Current, TagStyle::None, false, false, false, false, false},
    {"torch-1.13", Dialect::Torch113, TagStyle::Seed, false, false, false, false, false},
}};

}  // namespace

bool apply_style_name(std::string_view name, TextStyle& style) {
  for (const Era& e : kEras) {
    if (e.name != name) continue;
    style.dialect = e.dialect;
    style.tag_style = e.tags;
    style.quoted_annotations = e.quoted;
    style.comment_names_function = e.names_function;
    style.deep_comments = e.deep_comments;
    style.free_dead_results = e.free_dead_results;
    style.truncate_annotations = e.truncate_annotations;
    style.indent_blank_lines = e.indent_blank_lines;
    return true;
  }
  return false;
}

std::vector<std::string_view> style_names() {
  std::vector<std::string_view> names;
  for (const Era& e : kEras) names.push_back(e.name);
  return names;
}

}  // namespace remat
