#include "remat/cli/graph_files.h"

#include <cstdio>

#include "remat/io/graph_json.h"
#include "remat/ops/aten_overloads.h"
#include "remat/print/readable_parser.h"
#include "remat/support/file_io.h"

namespace remat::cli {

namespace {

// The 1-based line of `text` that defines node `name`: `name: ...`/`name = ...` in readable text,
// `"name": "name"` in fxgraph-json; 0 if none does.
int defining_line(std::string_view text, const std::string& name, bool readable) {
  std::string json_key = "\"name\": \"" + name + "\"";
  int line = 1;
  for (size_t start = 0; start < text.size(); ++line) {
    size_t nl = text.find('\n', start);
    std::string_view l = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (readable) {
      size_t at = l.find_first_not_of(' ');
      if (at != std::string_view::npos && l.substr(at).starts_with(name)) {
        std::string_view rest = l.substr(at + name.size());
        if (rest.starts_with(":") || rest.starts_with(" =")) return line;
      }
    } else if (l.find(json_key) != std::string_view::npos) {
      return line;
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return 0;
}

}  // namespace

Diagnostics target_diagnostics(const GraphModule& m, std::string_view text, const std::string& file, bool warning) {
  Diagnostics out;
  bool readable = looks_like_readable(text);
  for (const auto& [node, problem] : target_problems(m.graph())) {
    Diagnostic d;
    d.file = file;
    d.line = defining_line(text, node->name(), readable);
    d.message = "node " + node->name() + ": " + problem;
    d.warning = warning;
    out.push_back(std::move(d));
  }
  return out;
}

Expected<GraphModule> read_graph(std::string_view text, const std::string& name, BadTargets bad) {
  Expected<GraphModule> m = looks_like_readable(text) ? parse_readable(text, name) : read_graph_json(text, name);
  if (!m) return m;
  Diagnostics problems = target_diagnostics(*m, text, name, bad == BadTargets::Warn);
  if (problems.empty()) return m;
  if (bad == BadTargets::Refuse) return problems;
  std::fputs(format_all(problems).c_str(), stderr);
  return m;
}

Expected<GraphModule> load_graph(const std::string& path, BadTargets bad) {
  Expected<std::string> text = read_file(path);
  if (!text) return std::move(text).take_errors();
  return read_graph(*text, display_name(path), bad);
}

void PrintFlags::add_to(CLI::App& cmd) {
  cmd.add_flag("--include-stride", options_.include_stride, "annotate strides");
  cmd.add_flag("--include-device", options_.include_device, "annotate devices");
  cmd.add_flag("--expanded-def", options_.expanded_def,
               "one parameter per line, with descriptor comments");
  cmd.add_flag("--colored", options_.colored, "ANSI colors");
  cmd.add_option("--additional-meta", additional_meta_,
                 "comma-separated meta keys to show before each stack-trace comment");
  cmd.add_flag("--show-meta", options_.show_meta,
               "show every meta key above each node (FX_GRAPH_SHOW_META=1)");
  cmd.add_option("--tag-style", tag_style_,
                 "where recompute tags go: seed (own line, default), inline-2025, inline-2026")
      ->check(CLI::IsMember({"seed", "inline-2025", "inline-2026"}));
  cmd.add_option("--class-name", options_.class_name, "the printed class name");
  cmd.add_option("--style", style_, "which torch.fx's rules: current (default) or torch-1.13")
      ->check(CLI::IsMember({"current", "torch-1.13"}));
}

PrintOptions PrintFlags::options() const {
  PrintOptions o = options_;
  size_t start = 0;
  while (start < additional_meta_.size()) {
    size_t comma = additional_meta_.find(',', start);
    std::string key =
        additional_meta_.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!key.empty()) o.additional_meta.push_back(key);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  o.tag_style = tag_style_ == "inline-2025"   ? TagStyle::Inline2025
                : tag_style_ == "inline-2026" ? TagStyle::Inline2026
                                              : TagStyle::Seed;
  o.dialect = parse_dialect(style_).value_or(Dialect::Current);
  return o;
}

}  // namespace remat::cli
