#include "remat/report/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace remat::report {

namespace {

// Appends `text` with each byte that `special` marks replaced by its entity. Runs of ordinary
// bytes are copied whole: graph pages are mostly such runs.
void append_escaped(std::string& out, std::string_view text, const std::array<bool, 256>& special) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    const char* q = p;
    while (q < end && !special[static_cast<unsigned char>(*q)]) ++q;
    out.append(p, q);
    if (q == end) break;
    switch (*q) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += "&#39;";
        break;
    }
    p = q + 1;
  }
}

constexpr std::array<bool, 256> special_bytes(std::string_view bytes) {
  std::array<bool, 256> t{};
  for (char c : bytes) t[static_cast<unsigned char>(c)] = true;
  return t;
}

}  // namespace

void append_html_escaped(std::string& out, std::string_view text) {
  static constexpr auto kSpecial = special_bytes("&<>\"'");
  append_escaped(out, text, kSpecial);
}

void append_html_text(std::string& out, std::string_view text) {
  static constexpr auto kSpecial = special_bytes("&<>");
  append_escaped(out, text, kSpecial);
}

void append_script_json(std::string& out, std::string_view id, std::string_view json) {
  out += "<script type=\"application/json\" id=\"";
  append_html_escaped(out, id);
  out += "\">";
  // '<' appears only inside JSON strings, where \u003c means the same to JSON.parse.
  for (size_t at = 0; at < json.size();) {
    size_t lt = std::min(json.find('<', at), json.size());
    out.append(json, at, lt - at);
    if (lt < json.size()) out += "\\u003c";
    at = lt + 1;
  }
  out += "</script>\n";
}

std::string region_fill(int64_t id) {
  return fmt::format("hsl({}, 75%, 92%)", (id * 67 % 360 + 360) % 360);
}

std::string region_stroke(int64_t id) {
  return fmt::format("hsl({}, 60%, 45%)", (id * 67 % 360 + 360) % 360);
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  append_html_escaped(out, text);
  return out;
}

namespace {
constexpr std::string_view kCss = R"(
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 1.5em 2em; color: #1f2328; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; margin-top: 1.6em; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre.code { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: .6em 0; overflow-x: auto; }
pre.code .line { display: block; padding: 0 .8em; white-space: pre; }
pre.code .ln { display: inline-block; width: 3.5em; color: #8c959f; user-select: none; text-align: right; margin-right: 1em; }
.k { color: #cf222e; } .s { color: #0a3069; } .n { color: #0550ae; } .c { color: #6e7781; font-style: italic; } .op { color: #8250df; } .b { color: #953800; }
table { border-collapse: collapse; margin: .5em 0; } th, td { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.meta { color: #57606a; font-size: .9em; }
.mark { display: inline-block; min-width: 7.5em; font-size: 11px; border-radius: 3px; padding: 0 .4em; margin-right: .3em; cursor: help; }
pre.code .gutter { display: inline-block; min-width: 13em; margin-right: .6em; }
.graph-layout { display: flex; gap: 1em; align-items: flex-start; } .graph-layout pre.code { flex: 1; min-width: 0; margin: 0; }
#why-panel { position: sticky; top: .5em; width: 30em; flex-shrink: 0; max-height: 95vh; overflow: auto; font-size: .85em; }
#why-panel h2 { font-size: 1.1em; margin-top: .4em; } #why-panel table { width: 100%; }
@media print { .graph-layout { display: block; } #why-panel { position: static; width: auto; max-height: none; } pre.code .line { white-space: pre-wrap; } }
.mark-saved { background: #dafbe1; color: #116329; } .mark-saved-input { background: #f6f8fa; color: #57606a; } .mark-recomputed { background: #fff1d6; color: #9a6700; }
.mark-forward { background: #ddf4ff; color: #0550ae; } .mark-backward { background: #fbefff; color: #8250df; } .mark-moved { background: #fff1e5; color: #953800; }
.legend span { margin-right: 1em; }
.note { background: #fff8c5; border: 1px solid #d4a72c66; border-radius: 6px; padding: .4em .8em; }
pre.code .input-tag { background: #fff8c5; }
ul.trie { list-style: none; padding-left: 1.2em; } ul.trie li { margin: .1em 0; }
.status-ok { color: #116329; } .status-fail { color: #cf222e; } .status-missing { color: #8250df; }
figure.chart { margin: 1em 0 1.8em; } figure.chart figcaption { color: #57606a; font-size: .9em; margin-bottom: .3em; max-width: 70em; }
figure.chart svg { max-width: 1100px; font: 11px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
.grid line { stroke: #eaeef2; } .axis line { stroke: #8c959f; } .axis text, .row-label { fill: #57606a; } .axis .title { fill: #1f2328; font-size: 12px; }
.curve { fill: none; stroke-width: 2; stroke-linejoin: round; } .curve.c0 { stroke: #0969da; stroke-width: 2.5; } .curve.c1 { stroke: #cf222e; stroke-dasharray: 6 4; } .curve.c2 { stroke: #1a7f37; stroke-dasharray: 2 3; } .curve.c3 { stroke: #8250df; stroke-dasharray: 1 2; stroke-width: 3; }
.points circle { fill: transparent; cursor: help; } .points circle:hover { fill: #0969da; }
.peak { fill: #0550ae; stroke: #fff; stroke-width: 1.5; } #memory-peak text { fill: #0550ae; font-weight: 600; }
.phase line { stroke: #8c959f; stroke-dasharray: 3 3; } .phase text { fill: #57606a; }
.budget-point { fill: #0969da; cursor: help; } .optimum-point { fill: #1a7f37; cursor: help; } .chosen { fill: none; stroke: #cf222e; stroke-width: 2.5; } .knee { fill: #bf8700; }
.chosen-label { fill: #cf222e; font-weight: 600; } .knee-label { fill: #9a6700; font-weight: 600; }
a.why { color: inherit; text-decoration: underline dotted #8c959f; }
dl.glossary dt { font-weight: 600; margin-top: 1em; } dl.glossary dd { margin: .2em 0 0 1.5em; }
.chart-note { font-size: .9em; color: #57606a; margin: .3em 0; }
.chart-legend { list-style: none; padding: 0; margin: .2em 0; display: flex; flex-wrap: wrap; gap: 1.5em; font-size: .85em; }
.swatch { display: inline-block; width: 2em; height: 0; border-top: 3px solid; vertical-align: middle; margin-right: .4em; }
.swatch.c0 { border-color: #0969da; } .swatch.c1 { border-color: #cf222e; border-top-style: dashed; } .swatch.c2 { border-color: #1a7f37; border-top-style: dotted; } .swatch.c3 { border-color: #8250df; border-top-style: dotted; }
#region-map .shade { fill: #d4a72c; opacity: .22; pointer-events: none; } #region-map .run { fill: #d4a72c; } #region-map .tick { stroke: #1a7f37; stroke-width: 3; }
@media print { figure.chart { break-inside: avoid; } .points { display: none; } }
footer { margin-top: 3em; border-top: 1px solid #d0d7de; padding-top: .6em; color: #57606a; font-size: .85em; }
)";
}  // namespace

void append_page_head(std::string& out, std::string_view title) {
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  append_html_escaped(out, title);
  out += "</title>\n<style>";
  out += kCss;
  out += "</style>\n</head>\n<body>\n";
}

void append_page_tail(std::string& out, std::string_view footer) {
  out += "\n<footer>";
  out += footer;
  out += "</footer>\n</body>\n</html>\n";
}

std::string html_page(std::string_view title, std::string_view body, std::string_view footer) {
  std::string out;
  append_page_head(out, title);
  out += body;
  append_page_tail(out, footer);
  return out;
}

std::string human_bytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KB", static_cast<double>(bytes) / 1024);
  if (bytes < 1024ull * 1024 * 1024)
    return fmt::format("{:.1f} MB", static_cast<double>(bytes) / (1024.0 * 1024));
  return fmt::format("{:.2f} GB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

std::string human_count(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string human_flops(uint64_t flops) {
  static constexpr std::pair<double, const char*> kUnits[] = {
      {1e12, "TFLOPs"}, {1e9, "GFLOPs"}, {1e6, "MFLOPs"}, {1e3, "KFLOPs"}};
  for (const auto& [scale, unit] : kUnits) {
    if (static_cast<double>(flops) >= scale)
      return fmt::format("{:.2f} {}", static_cast<double>(flops) / scale, unit);
  }
  return fmt::format("{} FLOPs", flops);
}

bool is_safe_link(std::string_view url) {
  // A control character could make a browser see a scheme where none is written.
  if (std::ranges::any_of(url, [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    return false;
  size_t end = url.find_first_of(":/?#");
  if (end == std::string_view::npos || url[end] != ':')
    return url.find('\\') == std::string_view::npos;  // relative; `\` reads as `/` to browsers
  std::string scheme;
  for (char c : url.substr(0, end))
    scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return scheme == "http" || scheme == "https";
}

}  // namespace remat::report
