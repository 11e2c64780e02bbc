// The parts of printed code that come from node.meta: annotations, the stack-trace comment,
// recompute-tag lines and the FX_GRAPH_SHOW_META block.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <optional>
#include <string>
#include <vector>

#include "remat/ir/node.h"
#include "remat/print/print_options.h"

namespace remat {

class MetaText {
 public:
  explicit MetaText(const PrintOptions& options) : o_(options) {}

  /// The verbose annotation (docs/spec/readable-text.md §3): `: "f32[4, 4][4, 1]cuda:0"`,
  /// `: "Sym(s0)"`, or "".
  [[nodiscard]] std::string annotation(const Meta& meta) const;
  void append_annotation(std::string& out, const Meta& meta) const;
  /// The stack-trace comment line `<M>#<ANN><TAG> <ST>` (docs/spec/readable-text.md §4.1), without
  /// colors.
  [[nodiscard]] std::string summary(const Node& node) const;
  /// PyTorch 1.13's stack-trace comment of a non-empty stack trace, without `# `: the context
  /// lines before the first `File ` line, `File: path:N` and `code: ...`, joined by `, `.
  [[nodiscard]] static std::string summary_1_13(std::string_view stack_trace);
  /// The seed's standalone tag line (docs/spec/readable-text.md §8.2), or nullopt when the node has
  /// no tags.
  [[nodiscard]] std::optional<std::string> seed_tag_line(const Meta& meta) const;
  /// True when the meta dict would be empty in Python.
  [[nodiscard]] bool empty(const Meta& meta) const;
  /// The `key: pformat(str(value))` lines of the FX_GRAPH_SHOW_META block
  /// (docs/spec/readable-text.md §4.5).
  [[nodiscard]] std::vector<std::string> full_meta_lines(const Node& node) const;

 private:
  const PrintOptions& o_;
  // Parsed `File: ...` text per interned stack trace: many nodes share one.
  mutable absl::flat_hash_map<const std::string*, std::optional<std::string>> frames_;
  // Annotation text per interned tensor metadata: nodes share shapes.
  mutable absl::flat_hash_map<const TensorMeta*, std::string> tensor_annotations_;
};

/// The node's Python type as torch.fx prints it (`float`, `torch.Tensor`): the node-level
/// `"type"` string of fxgraph-json (remat.export writes it for annotated placeholders), or nullopt.
/// With `field` "annotation": a quoted annotation remat does not model (`"TwoTensor(f32[3])"`),
/// kept as read; "meta_block": the node's FX_GRAPH_SHOW_META block as read (its lines, `"""`
/// included, relative to the body's indent; empty: the node showed none).
std::optional<std::string> node_type_text(const Node& node, std::string_view field = "type");

/// Python's `pprint.pformat(s, width=80, compact=True)` of a string.
std::string pformat_str(const std::string& s);

}  // namespace remat
