// The recompute tags of activation checkpointing as FX text writes them, in every placement:
// `ac_graph_id: 2 - PREFER_RECOMPUTE`, `recompute: MUST_SAVE`, `ac_graph_id: 2`, standing alone
// above a node (the seed), or inside the stack-trace comment of a group (PyTorch Nov 2025:
// `# # ac_graph_id: ...`, 2026: `#  ac_graph_id: ...`), or among FX_GRAPH_SHOW_META-style keys
// (`# seq_nr: 4, ac_graph_id: 2 # File: ...`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remat/fxtext/checkpoint_policy.h"

namespace remat {

/// Where recompute tags (`recompute`, `ac_graph_id`) go in the printed code.
enum class TagStyle : uint8_t {
  Seed,        ///< remat's default: a standalone `# ac_graph_id: 2 - PREFER_RECOMPUTE` line
  Inline2025,  ///< PyTorch Nov 2025: inside the stack-trace comment, `# # ac_graph_id: ...`
  Inline2026,  ///< PyTorch 2026: inside the stack-trace comment, `#  ac_graph_id: ...`
  None,        ///< not printed: releases before Nov 2025
};

/// `seed`, `inline-2025`, `inline-2026`, `none`; and back (nullopt for another name).
std::string_view tag_style_name(TagStyle s);
std::optional<TagStyle> parse_tag_style(std::string_view name);

namespace fxtext {

struct RecomputeTags {
  std::optional<CheckpointPolicy> recompute;
  std::optional<int64_t> ac_graph_id;
  [[nodiscard]] bool empty() const { return !recompute && !ac_graph_id; }
  friend bool operator==(const RecomputeTags&, const RecomputeTags&) = default;
};

/// `ac_graph_id: 2 - PREFER_RECOMPUTE`, `recompute: MUST_SAVE` or `ac_graph_id: 2`; nullopt
/// when there are no tags.
std::optional<std::string> format_tags(const RecomputeTags& tags);
/// Reads exactly what format_tags writes; nullopt for anything else.
std::optional<RecomputeTags> parse_tags(std::string_view text);

/// The tags inside a stack-trace comment, after its `#` and any `Annotation: {...}`: ` # <tags>`
/// (Inline2025) or ` <tags>` (Inline2026), up to the stack-trace part (` File: `, ` No stacktrace
/// found`, ` Backward of forward node:`), which `rest` holds.
struct InlineTags {
  RecomputeTags tags;
  TagStyle style;
  std::string_view rest;
};
std::optional<InlineTags> parse_inline_tags(std::string_view after_annotation);

/// The tags a whole comment line (trimmed, `#` first) carries, in any placement. `standalone`:
/// a seed tag line, which tags the statement right below it; otherwise the comment heads a
/// group and its tags hold for each node up to the next comment.
struct CommentTags {
  RecomputeTags tags;
  bool standalone = false;
};
std::optional<CommentTags> comment_tags(std::string_view comment);

}  // namespace fxtext
}  // namespace remat
