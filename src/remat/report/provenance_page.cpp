#include "remat/report/provenance_page.h"
#include "remat/report/log_json.h"

#include <map>
#include <vector>

#include "remat/fxtext/text_scan.h"
#include "remat/report/graph_html.h"
#include "remat/report/html.h"

namespace remat::report {
namespace {

using Json = nlohmann::json;

/// Node name -> line of a printed graph (1-based).
std::map<std::string, size_t, std::less<>> node_lines(std::string_view graph) {
  std::map<std::string, size_t, std::less<>> out;
  for (const GraphLine& g : graph_lines(graph)) out.try_emplace(g.name, g.line + 1);
  return out;
}

/// Kernel name (`triton_poi_fused_mul_0`, or with Inductor's `:N` debug handle) -> the code's
/// lines that launch it, from the call function on (`def call(args)`, or C++'s `::run_impl(`).
std::map<std::string, std::vector<size_t>, std::less<>> kernel_lines(
    std::string_view code, const std::vector<std::string>& kernels, std::string_view call_marker) {
  std::map<std::string, std::vector<size_t>, std::less<>> out;
  std::vector<std::string_view> lines = fxtext::split_lines(code);
  size_t start = 0;
  while (start < lines.size() && lines[start].find(call_marker) == std::string_view::npos) ++start;
  if (start == lines.size()) start = 0;
  for (const std::string& kernel : kernels) {
    std::string_view pure = std::string_view(kernel).substr(0, kernel.rfind(':'));
    // With a debug handle: the first line after the handle that names the kernel.
    bool found = false;
    if (pure.size() != kernel.size()) {
      for (size_t i = start; i < lines.size() && !found; ++i) {
        if (lines[i].find(kernel) == std::string_view::npos) continue;
        for (size_t j = i + 1; j < lines.size(); ++j)
          if (lines[j].find(pure) != std::string_view::npos) {
            out[kernel].push_back(j + 1);
            found = true;
            break;
          }
        break;
      }
    }
    if (!found)
      for (size_t i = start; i < lines.size(); ++i)
        if (lines[i].find(pure) != std::string_view::npos) out[kernel].push_back(i + 1);
  }
  return out;
}

template <class From, class To>
Json map_lines(const Json& mapping, const From& from, const To& to) {
  Json out = Json::object();
  if (!mapping.is_object()) return out;
  for (const auto& [source, targets] : mapping.items()) {
    auto s = from.find(source);
    if (s == from.end() || !targets.is_array()) continue;
    std::vector<size_t> lines;
    for (const Json& t : targets) {
      if (!t.is_string()) continue;
      auto d = to.find(t.get<std::string>());
      if (d == to.end()) continue;
      if constexpr (std::is_same_v<typename To::mapped_type, size_t>)
        lines.push_back(d->second);
      else
        lines.insert(lines.end(), d->second.begin(), d->second.end());
    }
    if (lines.empty()) continue;
    if constexpr (std::is_same_v<typename From::mapped_type, size_t>) {
      out[std::to_string(s->second)] = lines;
    } else {
      for (size_t line : s->second) out[std::to_string(line)] = lines;
    }
  }
  return out;
}

std::string pane(const char* id, const char* title, std::string_view text) {
  std::string out =
      std::string("<div class=\"pane\"><h2>") + title + "</h2><pre id=\"" + id + "\">";
  std::vector<std::string_view> lines = fxtext::split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i)
    out += "<span class=\"line\" data-line=\"" + std::to_string(i + 1) + "\"><span class=\"ln\">" +
           std::to_string(i + 1) + "</span>" + html_escape(lines[i]) + "\n</span>";
  return out + "</pre></div>\n";
}

}  // namespace

Json provenance_line_mappings(const ProvenanceSources& s) {
  Json mappings = parse_log_json(s.node_mappings);
  Json out = {{"preToPost", Json::object()},     {"postToPre", Json::object()},
              {"pyCodeToPost", Json::object()},  {"postToPyCode", Json::object()},
              {"cppCodeToPost", Json::object()}, {"postToCppCode", Json::object()}};
  if (!mappings.is_object()) return out;
  auto pre = node_lines(s.pre_grad), post = node_lines(s.post_grad);
  std::vector<std::string> kernels;
  if (mappings.contains("cppCodeToPost") && mappings["cppCodeToPost"].is_object())
    for (const auto& [k, v] : mappings["cppCodeToPost"].items()) kernels.push_back(k);
  auto py = kernel_lines(s.output_code, kernels, "def call(args)");
  auto cpp = kernel_lines(s.aot_code, kernels, "::run_impl(");
  auto get = [&](const char* key) { return mappings.contains(key) ? mappings[key] : Json(); };
  out["preToPost"] = map_lines(get("preToPost"), pre, post);
  out["postToPre"] = map_lines(get("postToPre"), post, pre);
  out["pyCodeToPost"] = map_lines(get("cppCodeToPost"), py, post);
  out["postToPyCode"] = map_lines(get("postToCppCode"), post, py);
  out["cppCodeToPost"] = map_lines(get("cppCodeToPost"), cpp, post);
  out["postToCppCode"] = map_lines(get("postToCppCode"), post, cpp);
  return out;
}

std::string provenance_page_body(const ProvenanceSources& s, std::string_view compile_id) {
  if (!s.any()) {
    return "<h1>Provenance tracking " + html_escape(compile_id) +
           "</h1>\n<p>This compile logged no Inductor node mappings, so there is nothing to link. "
           "PyTorch logs them when provenance tracking is on: set "
           "<code>torch._inductor.config.trace.provenance_tracking_level = 1</code> (or "
           "<code>INDUCTOR_PROVENANCE=1</code>) and run with <code>TORCH_TRACE</code> again.</p>\n";
  }
  std::string body =
      "<h1>Provenance tracking " + html_escape(compile_id) +
      "</h1>\n<p>Click a line: the lines it came from and the lines it became are highlighted in "
      "the "
      "other panes.</p>\n<style>.panes{display:flex;gap:1em}.pane{flex:1;min-width:0;overflow:auto}"
      ".pane "
      "pre{font-size:12px}.line{display:block;cursor:pointer}.ln{color:#888;display:inline-block;"
      "width:3.5em}.line.hl{background:#ffef9a}.line.sel{background:#9ad0ff}</style>\n<div "
      "class=\"panes\">";
  body += pane("pre", "Pre-grad graph", s.pre_grad);
  body += pane("post", "Post-grad graph", s.post_grad);
  if (!s.output_code.empty()) body += pane("py", "Generated code", s.output_code);
  if (!s.aot_code.empty()) body += pane("cpp", "AOT wrapper code", s.aot_code);
  body += "</div>\n";
  append_script_json(body, "line-mappings", provenance_line_mappings(s).dump());
  body +=
      "<script>\n"
      "const M = JSON.parse(document.getElementById('line-mappings').textContent);\n"
      "const links = {pre: [['post', 'preToPost']], post: [['pre', 'postToPre'], ['py', "
      "'postToPyCode'], ['cpp', 'postToCppCode']],\n"
      "               py: [['post', 'pyCodeToPost']], cpp: [['post', 'cppCodeToPost']]};\n"
      "document.querySelectorAll('pre[id]').forEach(pre => pre.addEventListener('click', ev => {\n"
      "  const line = ev.target.closest('.line'); if (!line) return;\n"
      "  document.querySelectorAll('.hl, .sel').forEach(e => e.classList.remove('hl', 'sel'));\n"
      "  line.classList.add('sel');\n"
      "  for (const [other, key] of links[pre.id] || []) {\n"
      "    for (const n of (M[key] || {})[line.dataset.line] || []) {\n"
      "      const t = document.querySelector('#' + other + ' .line[data-line=\"' + n + '\"]');\n"
      "      if (t) { t.classList.add('hl'); t.scrollIntoView({block: 'nearest'}); }\n"
      "    }\n"
      "  }\n"
      "}));\n"
      "</script>\n";
  return body;
}

}  // namespace remat::report
