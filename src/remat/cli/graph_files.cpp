#include "remat/cli/graph_files.h"

#include <algorithm>

#include <cstdio>

#include "remat/cli/logged_compile.h"
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
    std::string_view l =
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
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

Diagnostics target_diagnostics(const GraphModule& m, std::string_view text, const std::string& file,
                               bool warning) {
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
  Expected<GraphModule> m =
      looks_like_readable(text) ? parse_readable(text, name) : read_graph_json(text, name);
  if (!m) return m;
  Diagnostics problems = target_diagnostics(*m, text, name, bad == BadTargets::Warn);
  if (problems.empty()) return m;
  if (bad == BadTargets::Refuse) return problems;
  std::fputs(format_all(problems).c_str(), stderr);
  return m;
}

Expected<std::string> read_input(const std::string& path, std::string_view expected) {
  Expected<std::string> text = read_file(path);
  if (!text) return text;
  if (text->find_first_not_of(" \t\r\n") == std::string::npos)
    return file_error(display_name(path), "empty file: expected " + std::string(expected));
  // Control bytes no text format remat reads has (NUL, ...): say so, not where a parser gave up.
  std::string_view head = std::string_view(*text).substr(0, 4096);
  if (std::ranges::any_of(head, [](unsigned char c) {
        return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b;
      }))
    return file_error(display_name(path), "a binary file: expected " + std::string(expected));
  return text;
}

Expected<GraphModule> load_graph(const std::string& path, BadTargets bad,
                                 const std::string& compile) {
  Expected<std::string> text = read_input(path, kGraphFileKinds);
  REMAT_TRY(text);
  if (!looks_like_trace_log(*text)) {
    if (!compile.empty())
      return file_error(display_name(path),
                        "--compile picks a compile of a TORCH_TRACE log, and this is a graph file");
    return read_graph(*text, display_name(path), bad);
  }
  Expected<LoggedCompile> c = logged_compile(path, compile);
  REMAT_TRY(c);
  return read_logged_joint(path, *c, bad);
}

Expected<GraphModule> read_logged_joint(const std::string& log, const LoggedCompile& c,
                                        BadTargets bad) {
  Expected<GraphModule> joint = read_graph(c.joint, display_name(log), bad);
  if (!joint) return in_log(joint.errors(), log, c);
  if (c.static_inputs) joint->static_lifetime_input_indices = c.static_inputs;
  return joint;
}

void add_compile_option(CLI::App& cmd, std::string& compile) {
  cmd.add_option("--compile", compile,
                 "with a TORCH_TRACE log: the compile whose logged joint graph to read (3/0, as "
                 "tlparse's [3/0]); a log with one needs none, and one with several lists them");
}

void PrintFlags::add_to(CLI::App& cmd) {
  stride_ = cmd.add_flag("--include-stride", flags_.include_stride, "annotate strides");
  device_ = cmd.add_flag("--include-device", flags_.include_device, "annotate devices");
  expanded_def_ = cmd.add_flag("--expanded-def", flags_.expanded_def,
                               "one parameter per line, with descriptor comments");
  colored_ = cmd.add_flag("--colored,!--no-colored", flags_.colored, "ANSI colors (or none)");
  cmd.add_option("--additional-meta", additional_meta_,
                 "comma-separated meta keys to show before each stack-trace comment");
  show_meta_ = cmd.add_flag(
      "--show-meta,!--no-show-meta", flags_.show_meta,
      "show every meta key above each node, FX_GRAPH_SHOW_META=1 (or not; a graph read "
      "from such text shows its blocks as read)");
  cmd.add_option("--tag-style", tag_style_,
                 "where recompute tags go: seed (own line, remat's default), inline-2025, "
                 "inline-2026, none")
      ->check(CLI::IsMember({"seed", "inline-2025", "inline-2026", "none"}));
  cmd.add_option("--class-name", flags_.class_name, "the printed class name");
  std::vector<std::string> names;
  std::string joined;
  for (std::string_view n : style_names()) {
    names.emplace_back(n);
    joined += (joined.empty() ? "" : ", ") + std::string(n);
  }
  cmd.add_option("--style", style_,
                 "print with the rules of one release of torch.fx: " + joined +
                     ". Default: a graph read from text keeps the style it was written in, any "
                     "other graph prints as seed")
      ->check(CLI::IsMember(names));
}

PrintOptions PrintFlags::options(const GraphModule& m) const {
  PrintOptions o = PrintOptions::as_read(m);
  if (!style_.empty()) apply_style_name(style_, o);
  if (stride_->count() > 0) o.include_stride = true;
  if (device_->count() > 0) o.include_device = true;
  if (expanded_def_->count() > 0) o.expanded_def = true;
  if (colored_->count() > 0) o.colored = flags_.colored;
  if (show_meta_->count() > 0) o.show_meta = flags_.show_meta;
  o.class_name = flags_.class_name;
  if (!additional_meta_.empty()) o.additional_meta.clear();
  size_t start = 0;
  while (start < additional_meta_.size()) {
    size_t comma = additional_meta_.find(',', start);
    std::string key =
        additional_meta_.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!key.empty()) o.additional_meta.push_back(key);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!tag_style_.empty()) o.tag_style = parse_tag_style(tag_style_).value_or(TagStyle::Seed);
  return o;
}

Expected<records::PartitionRecord> read_partition_record_file(const std::string& path) {
  Expected<std::string> text = read_input(path, "a partition record (remat-partition-report/1)");
  REMAT_TRY(text);
  return records::read_partition_record(*text, display_name(path));
}

}  // namespace remat::cli
