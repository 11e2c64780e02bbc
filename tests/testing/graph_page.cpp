#include "testing/graph_page.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace remat::testing {
namespace {

std::string unescape_text(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    for (auto [entity, c] : {std::pair{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}}) {
      if (s.substr(i).starts_with(entity)) {
        out += c;
        i += std::string_view(entity).size() - 1;
        break;
      }
    }
  }
  return out;
}

std::string between(const std::string& html, std::string_view open, std::string_view close) {
  size_t at = html.find(open);
  if (at == std::string::npos) return "";
  at += open.size();
  size_t end = html.find(close, at);
  return end == std::string::npos ? "" : html.substr(at, end - at);
}

}  // namespace

const GraphPageChip* GraphPage::chip(std::string_view name) const {
  for (const GraphPageChip& c : chips)
    if (c.name == name) return &c;
  return nullptr;
}

std::optional<GraphPage> read_graph_page(const std::string& html) {
  std::string pre = between(html, "<pre class=\"code\" id=\"graph-code\">\n", "</pre>");
  std::string data =
      between(html, "<script type=\"application/json\" id=\"graph-data\">", "</script>");
  if (data.empty() || html.find("<pre class=\"code\" id=\"graph-code\">\n") == std::string::npos) {
    ADD_FAILURE() << "not a graph page: " << html.substr(0, 300);
    return std::nullopt;
  }
  GraphPage page;
  page.text = unescape_text(pre);
  auto json = nlohmann::json::parse(data);  // \u003c decodes as '<'
  for (const auto& n : json["nodes"]) {
    size_t line = n[0];
    page.node_of_line[line] = n[1];
    if (n.size() > 2 && !n[2].is_null()) page.region_of_line[line] = n[2];
    if (n.size() > 3) page.nodes_on_line[line] = n[3];
  }
  for (const auto& t : json["inputTags"]) page.input_tags.insert(t.get<size_t>());
  for (const auto& [id, style] : json["regions"].items()) page.region_style[id] = style;
  if (json.contains("chips")) {
    page.has_chips = true;
    static constexpr const char* kKinds[] = {"saved",    "recomputed", "forward",
                                             "backward", "moved",      "saved-input"};
    for (const auto& c : json["chips"]) {
      GraphPageChip chip;
      chip.line = c[0];
      chip.kind = kKinds[c[1].get<size_t>()];
      chip.bytes = c[2];
      if (c.size() > 3 && c[3].get<int64_t>() >= 0)
        chip.reason = json["reasons"][c[3].get<size_t>()];
      if (c.size() > 4) chip.cost = c[4];
      chip.name = c.size() > 5 ? c[5].get<std::string>() : page.node_of_line.at(chip.line);
      page.chips.push_back(std::move(chip));
    }
  }
  return page;
}

}  // namespace remat::testing
