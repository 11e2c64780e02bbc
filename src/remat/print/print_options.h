// PrintOptions: the arguments of torch.fx's print_readable / python_code, plus remat's choices.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace remat {

/// Where recompute tags (`recompute`, `ac_graph_id`) go in the printed code.
enum class TagStyle : uint8_t {
  Seed,        ///< remat's default: a standalone `# ac_graph_id: 2 - PREFER_RECOMPUTE` line
  Inline2025,  ///< PyTorch Nov 2025: inside the stack-trace comment, `# # ac_graph_id: ...`
  Inline2026,  ///< PyTorch 2026: inside the stack-trace comment, `#  ac_graph_id: ...`
};

/// Which release's python_code rules the printer follows.
enum class Dialect : uint8_t {
  Current,   ///< torch.fx today: annotations from meta, `# File: ...` comments, dead results freed
  Torch113,  ///< PyTorch 1.13 (Debian's python3-torch): no annotations, `# <context>, File: f:N,
             ///< code: ...` comments after a blank line, only inputs freed
};

/// `current` or `torch-1.13`; nullopt for anything else.
inline std::optional<Dialect> parse_dialect(std::string_view name) {
  if (name == "current") return Dialect::Current;
  if (name == "torch-1.13") return Dialect::Torch113;
  return std::nullopt;
}

struct PrintOptions {
  bool include_stride = false;  ///< `FX_GRAPH_SHOW_STRIDE`
  bool include_device = false;  ///< `FX_GRAPH_SHOW_DEVICE`
  bool colored = false;         ///< ANSI colors
  bool expanded_def = false;    ///< one parameter per line, with descriptor comments
  bool show_meta = false;       ///< `FX_GRAPH_SHOW_META=1`: every meta key above each node
  std::vector<std::string> additional_meta;  ///< meta keys shown before each comment
  TagStyle tag_style = TagStyle::Seed;
  std::string class_name;  ///< overrides the module's class name when not empty
  Dialect dialect = Dialect::Current;

  /// `gm.print_readable()` with its defaults.
  static PrintOptions readable() { return {}; }
  /// PyTorch 1.13's `gm.print_readable()` (it has no options).
  static PrintOptions torch_1_13() {
    PrintOptions o;
    o.dialect = Dialect::Torch113;
    return o;
  }
  /// What tlparse's `aot_*_graph` artifacts use: stride, device and expanded_def.
  static PrintOptions tlparse() {
    PrintOptions o;
    o.include_stride = o.include_device = o.expanded_def = true;
    return o;
  }
  /// What TORCH_LOGS' graph dumps use: stride, device and colors.
  static PrintOptions torch_logs() {
    PrintOptions o;
    o.include_stride = o.include_device = o.colored = true;
    return o;
  }
};

}  // namespace remat
