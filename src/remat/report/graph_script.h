// The browser side of a graph page: the page carries the graph's text (escaped, readable without
// scripts) and a small JSON of what the text alone does not say (each line's node, its checkpoint
// region, the partition's chips); this script numbers, anchors, highlights and marks the lines in
// the reader's browser. A report writes the text once instead of three times over in markup.
#pragma once

#include <string_view>

namespace remat::report {

/// The script, inline after `<pre id="graph-code">` and `<script id="graph-data">`.
std::string_view graph_page_script();

}  // namespace remat::report
