// remat convert IN OUT: between fxgraph-json and readable text, or JSON to JSON.
#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/io/fxgraph_file.h"
#include "remat/io/graph_json.h"
#include "remat/print/printer.h"
#include "remat/print/readable_parser.h"
#include "remat/support/file_io.h"

namespace remat::cli {
namespace {

bool wants_text(const std::string& path, const std::string& format) {
  if (format == "text") return true;
  if (format == "json") return false;
  return path.ends_with(".txt") || path.ends_with(".py");
}

struct ConvertArgs {
  std::string in, out, to = "auto";
  PrintFlags flags;
};

Expected<int> run_convert(const ConvertArgs& a) {
  // An output whose extension names no format is not guessed at.
  if (a.to == "auto" && a.out != "-" && !a.out.ends_with(".json") && !a.out.ends_with(".txt") &&
      !a.out.ends_with(".py")) {
    return file_error(a.out,
                      "the extension names no format: use .json, .txt or .py, or --to json|text");
  }
  Expected<std::string> text = read_input(a.in, kGraphFileKinds);
  REMAT_TRY(text);
  std::string name = display_name(a.in);
  std::string output;
  if (looks_like_readable(*text) || wants_text(a.out, a.to)) {
    Expected<GraphModule> m = read_graph(*text, name, BadTargets::Warn);
    REMAT_TRY(m);
    if (wants_text(a.out, a.to)) {
      // Text read from text ends as the input did: print() adds a newline, a log payload
      // not, and 2.13's text already ends with one (its last, blank line is empty).
      output = print_readable(*m, a.flags.options(*m)).text;
      auto newlines = [](std::string_view s) { return s.size() - s.find_last_not_of('\n') - 1; };
      if (!looks_like_readable(*text) || newlines(*text) > newlines(output)) output += '\n';
    } else {
      output = write_graph_json(*m);
    }
  } else {
    Expected<FxgraphDocument> doc = read_fxgraph(*text, name);
    REMAT_TRY(doc);
    output = write_fxgraph(*doc);
  }
  Status written = write_file_atomic(a.out, output);
  REMAT_TRY(written);
  return kExitOk;
}

}  // namespace

void add_convert_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "convert",
      "Convert a graph between fxgraph-json and readable text (the output's extension, .txt/.py "
      "or .json, or --to picks the format; '-' for stdin/stdout). Flow-network and partition "
      "files are re-written as JSON. The output is written whole or not at all.");
  auto a = std::make_shared<ConvertArgs>();
  cmd->add_option("input", a->in, "input file (fxgraph-json or readable text), or -")->required();
  cmd->add_option("output", a->out, "output file, or - for stdout")->required();
  cmd->add_option("--to", a->to, "output format: auto (by extension), json or text")
      ->check(CLI::IsMember({"auto", "json", "text"}));
  a->flags.add_to(*cmd);
  run_verb(*cmd, a, exit_code, &run_convert);
}

}  // namespace remat::cli
