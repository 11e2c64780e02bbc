// remat print FILE: the graph as torch.fx's print_readable() prints it.
#include <cstdio>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/print/printer.h"

namespace remat::cli {

namespace {

struct PrintArgs {
  std::string file, compile;
  PrintFlags flags;
  bool code = false;
};

Expected<int> run_print(const PrintArgs& a) {
  Expected<GraphModule> m = load_graph(a.file, BadTargets::Warn, a.compile);
  REMAT_TRY(m);
  PrintOptions options = a.flags.options(*m);
  PrintedCode printed = a.code ? print_code(*m, options) : print_readable(*m, options);
  std::fwrite(printed.text.data(), 1, printed.text.size(), stdout);
  std::fputc('\n', stdout);  // print() adds one newline
  return kExitOk;
}

}  // namespace

void add_print_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "print",
      "Print a graph as torch.fx's GraphModule.print_readable() does, byte for byte, "
      "with recompute tags (# ac_graph_id: N - POLICY) above tagged nodes.");
  auto a = std::make_shared<PrintArgs>();
  cmd->add_option("file", a->file,
                  "graph file (fxgraph-json or readable text), a TORCH_TRACE log, or - for stdin")
      ->required();
  add_compile_option(*cmd, a->compile);
  a->flags.add_to(*cmd);
  cmd->add_flag("--code", a->code, "print gm.code (the non-verbose form) instead");
  run_verb(*cmd, a, exit_code, &run_print);
}

}  // namespace remat::cli
