// TextStyle: how a graph's print_readable text is written: which PyTorch release's rules and
// which of print_readable's options. The readable parser records the style it read on the
// GraphModule, so printing it again reproduces the text byte for byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/fxtext/recompute_tags.h"

namespace remat {

/// Which family of python_code rules the printer follows.
enum class Dialect : uint8_t {
  Current,   ///< torch.fx 2.x: annotations from meta, `# File: ...` comments
  Torch113,  ///< PyTorch 1.13 (Debian's python3-torch): no annotations, `# <context>, File: f:N,
             ///< code: ...` comments after a blank line, only inputs freed
};

struct TextStyle {
  Dialect dialect = Dialect::Current;
  TagStyle tag_style = TagStyle::Seed;
  bool include_stride = false;               ///< `FX_GRAPH_SHOW_STRIDE`
  bool include_device = false;               ///< `FX_GRAPH_SHOW_DEVICE`
  bool expanded_def = false;                 ///< one parameter per line, with descriptor comments
  bool colored = false;                      ///< ANSI colors
  std::vector<std::string> additional_meta;  ///< meta keys shown before each comment
  /// Annotations in quotes (`x: "f32[3]"`, 2.2 on); 2.0-2.1 printed `x: f32[3]`.
  bool quoted_annotations = true;
  /// `File: f.py:9 in fn, code: ...` (2024 on); 2022-2023 (and 1.13) printed no `in fn`.
  bool comment_names_function = true;
  /// 2.5-2.9 printed stack-trace comments one column deeper (` # File:`, 9 columns in forward).
  bool deep_comments = false;
  /// A result nobody uses is freed right away (`cos = x.cos();  x = cos = None`, 2025 on).
  bool free_dead_results = true;
  /// `# Annotation: {...}` values longer than 40 characters are cut (`'...'`, 2026 on).
  bool truncate_annotations = true;
  /// Whitespace-only lines carry the module's indentation (`_addindent` indented every line up
  /// to 2.12); PyTorch 2.13's leaves blank lines empty, so its text ends `return ...\n`.
  bool indent_blank_lines = true;
  /// `FX_GRAPH_SHOW_META=1`: every meta key, in a `"""` block above each node. A graph read from
  /// such text keeps each node's block as it was written (node field `meta_block`).
  bool show_meta = false;

  friend bool operator==(const TextStyle&, const TextStyle&) = default;
};

/// `current`, `torch-1.13`; and back.
std::string_view dialect_name(Dialect d);
std::optional<Dialect> parse_dialect(std::string_view name);

}  // namespace remat
