// remat print FILE: the graph as torch.fx's print_readable() prints it.
#include <cstdio>

#include "remat/cli/commands.h"
#include "remat/io/graph_json.h"
#include "remat/print/printer.h"

namespace remat::cli {

void add_print_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "print",
      "Print a graph as torch.fx's GraphModule.print_readable() does, byte for byte, "
      "with recompute tags (# ac_graph_id: N - POLICY) above tagged nodes.");
  struct Args {
    std::string file;
    PrintOptions options;
    std::string additional_meta;
    std::string tag_style = "seed";
    bool code = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("file", a->file, "fxgraph-json graph file, or - for stdin")->required();
  cmd->add_flag("--include-stride", a->options.include_stride, "annotate strides");
  cmd->add_flag("--include-device", a->options.include_device, "annotate devices");
  cmd->add_flag("--expanded-def", a->options.expanded_def,
                "one parameter per line, with descriptor comments");
  cmd->add_flag("--colored", a->options.colored, "ANSI colors");
  cmd->add_option("--additional-meta", a->additional_meta,
                  "comma-separated meta keys to show before each stack-trace comment");
  cmd->add_flag("--show-meta", a->options.show_meta,
                "show every meta key above each node (FX_GRAPH_SHOW_META=1)");
  cmd->add_option("--tag-style", a->tag_style,
                  "where recompute tags go: seed (own line, default), inline-2025, inline-2026")
      ->check(CLI::IsMember({"seed", "inline-2025", "inline-2026"}));
  cmd->add_flag("--code", a->code, "print gm.code (the non-verbose form) instead");
  cmd->add_option("--class-name", a->options.class_name, "the printed class name");
  cmd->callback([a, &exit_code] {
    Expected<GraphModule> m = load_graph_json(a->file);
    if (!m) {
      exit_code = report(m.errors());
      return;
    }
    PrintOptions options = a->options;
    size_t start = 0;
    while (start < a->additional_meta.size()) {
      size_t comma = a->additional_meta.find(',', start);
      std::string key =
          a->additional_meta.substr(start, comma == std::string::npos ? comma : comma - start);
      if (!key.empty()) options.additional_meta.push_back(key);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    options.tag_style = a->tag_style == "inline-2025"   ? TagStyle::Inline2025
                        : a->tag_style == "inline-2026" ? TagStyle::Inline2026
                                                        : TagStyle::Seed;
    PrintedCode printed = a->code ? print_code(*m, options) : print_readable(*m, options);
    std::fwrite(printed.text.data(), 1, printed.text.size(), stdout);
    std::fputc('\n', stdout);  // print() adds one newline
    exit_code = kExitOk;
  });
}

}  // namespace remat::cli
