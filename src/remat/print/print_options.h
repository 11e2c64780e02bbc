// PrintOptions: the arguments of torch.fx's print_readable / python_code, plus remat's choices.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/ir/text_style.h"

namespace remat {

/// The era rules of a named release, applied to `style` (its options, stride, device and
/// expanded_def, are kept). Names: `seed` (remat's own, the default; `current` is the same),
/// `torch-2.13`, `torch-2026`, `torch-2.10`, `torch-2.5-2.9`, `torch-2.4`, `torch-2.1`,
/// `torch-1.13`. False for any other name.
bool apply_style_name(std::string_view name, TextStyle& style);
/// The names apply_style_name knows, for help texts.
std::vector<std::string_view> style_names();

/// The style of the text plus the options that no text records.
struct PrintOptions : TextStyle {
  std::string class_name;  ///< overrides the module's class name when not empty

  /// `gm.print_readable()` with its defaults.
  static PrintOptions readable() { return {}; }
  /// The style a parsed module recorded (the defaults for a module built in memory).
  static PrintOptions as_read(const GraphModule& m) {
    PrintOptions o;
    if (m.text_style) static_cast<TextStyle&>(o) = *m.text_style;
    return o;
  }
  /// PyTorch 1.13's `gm.print_readable()` (it has no options).
  static PrintOptions torch_1_13() {
    PrintOptions o;
    apply_style_name("torch-1.13", o);
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
