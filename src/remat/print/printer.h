// The readable printer: a GraphModule as torch.fx's print_readable() / gm.code print it.
#pragma once

#include <string>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/print/print_options.h"

namespace remat {

/// Printed text and, for each of its lines, the node the line belongs to (nullptr for class
/// and def lines). A node's stack-trace comment and tag lines belong to that node.
struct PrintedCode {
  std::string text;
  std::vector<const Node*> line_nodes;
};

/// `gm.print_readable(print_output=False, ...)`: the `class ...(torch.nn.Module):` text with
/// nested submodule classes, byte-identical to torch.fx (docs/spec/readable-text.md), recompute
/// tags placed by `options.tag_style`. The text has no final newline; print() adds one.
PrintedCode print_readable(const GraphModule& module, const PrintOptions& options = {});

/// `gm.code`: the non-verbose `forward` source (no annotations or stack-trace comments; the
/// seed-style tag lines and the show_meta block do appear, as in torch.fx).
PrintedCode print_code(const GraphModule& module, const PrintOptions& options = {});

}  // namespace remat
