// Reads print_readable text (remat's and every era of PyTorch's) back into a GraphModule.
#pragma once

#include <string>
#include <string_view>

#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"

namespace remat {

/// Parses the text of `GraphModule.print_readable()` (or of `gm.code`, a bare `def forward`)
/// into a module with its nested submodule classes. Metadata comes back from what the text carries:
///  - tensor metadata from annotations (`"f32[4, 4][4, 1]cuda:0"`, unquoted 2023 `f32[3]`,
///    `Sym(s0)`), as `val` metadata with the strides and device the text shows;
///  - stack traces from `# File: path:line in fn, code: ...` comments (a one-frame traceback),
///    custom annotations from `# Annotation: {...}` (values the printer cut at 40 characters
///    stay cut), `additional_meta` prefixes for the keys remat types (seq_nr, partitioner_tag,
///    ac_graph_id, recompute), recompute tags in all three styles;
///  - descriptors from `# ...` comments of expanded signatures and returns;
///  - pytree codegen from `fx_pytree.tree_flatten_spec(...)`.
/// What text cannot carry: strides and devices not printed, meta keys not printed (nn_module_stack,
/// source_fn_stack...), frames of a stack trace other than the innermost, the module part of
/// Python callables printed as sanitized globals (`math_sqrt` stays that name), node users'
/// order (rebuilt from the arguments), `# COUNTER` markers and deletions (derived again).
/// ANSI color codes are ignored. Errors read `file:line:col: error: ...` with the line and a caret.
Expected<GraphModule> parse_readable(std::string_view text, const std::string& file);

/// True when `text` looks like readable code rather than JSON (its first non-blank character is
/// not `{`).
bool looks_like_readable(std::string_view text);

}  // namespace remat
