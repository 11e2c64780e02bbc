#include "remat/fxtext/recompute_tags.h"

#include <charconv>

#include "remat/fxtext/text_scan.h"
#include "remat/support/enum_names.h"

namespace remat {
namespace {

constexpr EnumNames<TagStyle, 4> kTagStyles({"seed", "inline-2025", "inline-2026", "none"});

}  // namespace

std::string_view tag_style_name(TagStyle s) {
  return kTagStyles.name(s);
}
std::optional<TagStyle> parse_tag_style(std::string_view name) {
  return kTagStyles.parse(name);
}

namespace fxtext {
namespace {

constexpr std::string_view kIdKey = "ac_graph_id: ";
constexpr std::string_view kRecomputeKey = "recompute: ";
// What follows the tags inside a stack-trace comment.
constexpr std::string_view kTraceParts[] = {" File: ", " No stacktrace found",
                                            " Backward of forward node:"};

std::optional<int64_t> parse_id(std::string_view s) {
  int64_t v = 0;
  if (s.empty() || s.size() > 18) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

/// ` Annotation: {...}` at the start of a comment's text: its length, 0 when there is none, npos
/// when the dict does not close.
size_t annotation_length(std::string_view s) {
  constexpr std::string_view kAnnotation = " Annotation: {";
  if (!s.starts_with(kAnnotation)) return 0;
  size_t end = find_outside_quotes(
      s, kAnnotation.size() - 1, [](char c, size_t, int depth) { return c == '}' && depth == 0; });
  return end == std::string_view::npos ? end : end + 1;
}

/// The tags of a comment's text after `#` when it is a stack-trace comment (annotation, inline
/// tags, the trace part); an empty set when it has no tags; nullopt when it is no such comment.
std::optional<RecomputeTags> summary_tags(std::string_view s) {
  size_t annotation = annotation_length(s);
  if (annotation == std::string_view::npos) return std::nullopt;
  s.remove_prefix(annotation);
  if (auto inline_tags = parse_inline_tags(s)) return inline_tags->tags;
  for (std::string_view part : kTraceParts)
    if (s.starts_with(part)) return RecomputeTags{};
  return std::nullopt;
}

}  // namespace

std::optional<std::string> format_tags(const RecomputeTags& t) {
  if (t.recompute && t.ac_graph_id)
    return std::string(kIdKey) + std::to_string(*t.ac_graph_id) + " - " +
           std::string(policy_name(*t.recompute));
  if (t.recompute) return std::string(kRecomputeKey) + std::string(policy_name(*t.recompute));
  if (t.ac_graph_id) return std::string(kIdKey) + std::to_string(*t.ac_graph_id);
  return std::nullopt;
}

std::optional<RecomputeTags> parse_tags(std::string_view s) {
  RecomputeTags t;
  if (s.starts_with(kRecomputeKey)) {
    t.recompute = parse_policy(s.substr(kRecomputeKey.size()));
    if (!t.recompute) return std::nullopt;
    return t;
  }
  if (!s.starts_with(kIdKey)) return std::nullopt;
  s.remove_prefix(kIdKey.size());
  size_t dash = s.find(" - ");
  t.ac_graph_id = parse_id(s.substr(0, dash));
  if (!t.ac_graph_id) return std::nullopt;
  if (dash == std::string_view::npos) return t;
  t.recompute = parse_policy(s.substr(dash + 3));
  if (!t.recompute) return std::nullopt;
  return t;
}

std::optional<InlineTags> parse_inline_tags(std::string_view s) {
  for (std::string_view prefix : {" # ", " "}) {
    if (!s.starts_with(prefix)) continue;
    std::string_view rest = s.substr(prefix.size());
    if (!(rest.starts_with(kIdKey) || rest.starts_with(kRecomputeKey))) continue;
    // The tags run up to the stack-trace part.
    size_t end = std::string_view::npos;
    for (std::string_view part : kTraceParts) {
      end = rest.find(part);
      if (end != std::string_view::npos) break;
    }
    if (end == std::string_view::npos) return std::nullopt;
    std::optional<RecomputeTags> tags = parse_tags(rest.substr(0, end));
    if (!tags) return std::nullopt;
    return InlineTags{*tags, prefix == " # " ? TagStyle::Inline2025 : TagStyle::Inline2026,
                      rest.substr(end)};
  }
  return std::nullopt;
}

std::optional<CommentTags> comment_tags(std::string_view c) {
  if (!c.starts_with("#")) return std::nullopt;
  if (c.starts_with("# ")) {
    if (std::optional<RecomputeTags> seed = parse_tags(c.substr(2)))
      return CommentTags{*seed, /*standalone=*/true};
  }
  if (std::optional<RecomputeTags> tags = summary_tags(c.substr(1)); tags && !tags->empty())
    return CommentTags{*tags};
  // `# key: value, ... #<stack-trace comment>`: keys shown before the comment (additional_meta).
  if (!c.starts_with("# ")) return std::nullopt;
  for (size_t p = c.find(" #"); p != std::string_view::npos; p = c.find(" #", p + 1)) {
    std::optional<RecomputeTags> tags = summary_tags(c.substr(p + 2));
    if (!tags) continue;
    for (std::string_view item : split_top_level(c.substr(2, p - 2), ", ")) {
      if (item.starts_with(kIdKey)) {
        if (auto id = parse_id(item.substr(kIdKey.size()))) tags->ac_graph_id = id;
      } else if (item.starts_with(kRecomputeKey)) {
        if (auto policy = parse_policy(item.substr(kRecomputeKey.size()))) tags->recompute = policy;
      }
    }
    if (tags->empty()) return std::nullopt;
    return CommentTags{*tags};
  }
  return std::nullopt;
}

}  // namespace fxtext
}  // namespace remat
