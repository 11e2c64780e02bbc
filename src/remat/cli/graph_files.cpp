#include "remat/cli/graph_files.h"

#include "remat/io/graph_json.h"
#include "remat/print/readable_parser.h"
#include "remat/support/file_io.h"

namespace remat::cli {

Expected<GraphModule> read_graph(std::string_view text, const std::string& name) {
  if (looks_like_readable(text)) return parse_readable(text, name);
  return read_graph_json(text, name);
}

Expected<GraphModule> load_graph(const std::string& path) {
  Expected<std::string> text = read_file(path);
  if (!text) return std::move(text).take_errors();
  return read_graph(*text, display_name(path));
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
  return o;
}

}  // namespace remat::cli
