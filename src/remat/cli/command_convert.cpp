// remat convert IN OUT: re-write an fxgraph-json file (graph, flow or partition summary).
#include "remat/cli/commands.h"
#include "remat/io/fxgraph_file.h"
#include "remat/support/file_io.h"

namespace remat::cli {

void add_convert_command(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("convert",
                         "Read a graph, flow-network or partition file and write it again ('-' for "
                         "stdin/stdout). The output is written whole or not at all.");
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("input", *in, "input file (fxgraph-json), or - for stdin")->required();
  cmd->add_option("output", *out, "output file, or - for stdout")->required();
  cmd->callback([in, out, &exit_code] {
    Expected<FxgraphDocument> doc = load_fxgraph(*in);
    if (!doc) {
      exit_code = report(doc.errors());
      return;
    }
    Status written = write_file_atomic(*out, write_fxgraph(*doc));
    exit_code = written ? kExitOk : report(written.errors());
  });
}

}  // namespace remat::cli
