// What a report's graph page carries for the browser (report/graph_script.cpp): its text and the
// JSON of each line's node, region and partition chip. Tests read it here; how the browser
// renders it is tests/cli/browser_test.cpp's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace remat::testing {

struct GraphPageChip {
  size_t line;       ///< 0-based
  std::string kind;  ///< its CSS class: saved, saved-input, recomputed, forward, backward, moved
  std::string name, bytes, reason, cost;
};

struct GraphPage {
  std::string text;                                 ///< the <pre>'s text, unescaped
  std::map<size_t, std::string> node_of_line;       ///< the first node each line defines
  std::map<size_t, int64_t> region_of_line;         ///< that node's ac_graph_id
  std::map<size_t, int64_t> nodes_on_line;          ///< where a line defines more than one
  std::set<size_t> input_tags;                      ///< lines that are an input's tag
  std::map<std::string, std::string> region_style;  ///< ac_graph_id -> its line's style
  bool has_chips = false;                           ///< a joint graph with a partition
  std::vector<GraphPageChip> chips;
  /// The chip of node `name`, or nullptr.
  [[nodiscard]] const GraphPageChip* chip(std::string_view name) const;
};

/// The graph page in `html`; nullopt (and a gtest failure) when it is not one.
std::optional<GraphPage> read_graph_page(const std::string& html);

}  // namespace remat::testing
