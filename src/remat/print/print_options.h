// PrintOptions: the arguments of torch.fx's print_readable / python_code, plus remat's choices.
#pragma once

#include <string>
#include <vector>

namespace remat {

/// Where recompute tags (`recompute`, `ac_graph_id`) go in the printed code.
enum class TagStyle : uint8_t {
  Seed,        ///< remat's default: a standalone `# ac_graph_id: 2 - PREFER_RECOMPUTE` line
  Inline2025,  ///< PyTorch Nov 2025: inside the stack-trace comment, `# # ac_graph_id: ...`
  Inline2026,  ///< PyTorch 2026: inside the stack-trace comment, `#  ac_graph_id: ...`
};

struct PrintOptions {
  bool include_stride = false;  ///< `FX_GRAPH_SHOW_STRIDE`
  bool include_device = false;  ///< `FX_GRAPH_SHOW_DEVICE`
  bool colored = false;         ///< ANSI colors
  bool expanded_def = false;    ///< one parameter per line, with descriptor comments
  bool show_meta = false;       ///< `FX_GRAPH_SHOW_META=1`: every meta key above each node
  std::vector<std::string> additional_meta;  ///< meta keys shown before each comment
  TagStyle tag_style = TagStyle::Seed;
  std::string class_name;  ///< overrides the module's class name when not empty

  /// `gm.print_readable()` with its defaults.
  static PrintOptions readable() { return {}; }
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
