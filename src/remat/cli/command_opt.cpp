// remat opt FILE --passes=dce,cse: run registered graph passes by name and print the graph they
// leave, as readable text (the text-in, text-out form tests/passes/*.txt checks).
#include <cstdio>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/passes/pass_pipeline.h"
#include "remat/passes/pass_registry.h"
#include "remat/print/printer.h"
#include "remat/print/readable_parser.h"
#include "remat/support/file_io.h"

namespace remat::cli {
namespace {

struct OptArgs {
  std::string file, passes, output = "-";
  bool list = false, verify_each = false, print_after_all = false, stats = false, remarks = false;
  PrintFlags flags;
};

// A readable file holds one graph, or a partition's two (the forward's class, then the
// backward's). Each later class is read with blank lines in front, so its errors keep the
// file's line numbers.
std::vector<std::string> module_texts(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0, start_line = 0, line = 0;
  bool seen_class = false;
  for (size_t at = 0; at < text.size(); ++line) {
    if (text.substr(at).starts_with("class ")) {
      if (seen_class) {
        out.push_back(std::string(start_line, '\n') + std::string(text.substr(start, at - start)));
        start = at;
        start_line = line;
      }
      seen_class = true;
    }
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  out.push_back(std::string(start_line, '\n') + std::string(text.substr(start)));
  return out;
}

// The backward's placeholders say what the forward saved: symbolic sizes, then tensors, then
// the tangents.
ForwardBackward as_partition(GraphModule forward, GraphModule backward) {
  ForwardBackward graphs{std::move(forward), std::move(backward), {}, {}, {}};
  for (const Node* p : graphs.backward.graph().placeholders()) {
    if (is_tangent(*p)) continue;
    (p->meta.sym_value() ? graphs.saved_symints : graphs.saved_values).push_back(p->name());
  }
  return graphs;
}

std::string run_summary(const passes::PassRun& run) {
  std::string line = "# " + run.name + (run.graph.empty() ? "" : " (" + run.graph + ")") + ":";
  if (run.result.statistics.empty()) return line + (run.result.changed ? " changed" : " unchanged");
  for (size_t i = 0; i < run.result.statistics.size(); ++i) {
    const auto& [name, value] = run.result.statistics[i];
    line += (i == 0 ? " " : ", ") + name + " " + std::to_string(value);
  }
  return line;
}

Expected<int> run_opt(const OptArgs& a) {
  if (a.list) {
    for (const passes::PassInfo& p : passes::registered_passes())
      std::printf("%-22s %s%s\n", p.name.c_str(), p.summary.c_str(),
                  p.needs_pair() ? " [forward and backward]" : "");
    return kExitOk;
  }
  if (a.file.empty()) return error_message("remat opt: a graph file is needed (or --list)");
  auto pipeline_passes = passes::parse_pass_list(a.passes);
  REMAT_TRY(pipeline_passes);
  Expected<std::string> text = read_input(a.file, kGraphFileKinds);
  REMAT_TRY(text);
  std::vector<GraphModule> modules;
  std::vector<std::string> texts =
      looks_like_readable(*text) ? module_texts(*text) : std::vector<std::string>{*text};
  if (texts.size() > 2)
    return file_error(display_name(a.file),
                      std::to_string(texts.size()) +
                          " graphs: remat opt reads one graph, or a partition's forward and "
                          "backward (two)");
  for (const std::string& t : texts) {
    auto m = read_graph(t, display_name(a.file), BadTargets::Warn);
    REMAT_TRY(m);
    modules.push_back(std::move(*m));
  }
  std::string out;
  passes::PassOptions options;
  options.verify_each = a.verify_each;
  if (a.print_after_all) {
    options.after_each = [&](const passes::PassRun& run, std::string_view graph,
                             const GraphModule& m) {
      out += "# after " + run.name + (graph.empty() ? "" : " (" + std::string(graph) + ")") + "\n" +
             print_readable(m, a.flags.options(m)).text + "\n";
    };
  }
  passes::PassPipeline pipeline(options);
  for (const passes::PassInfo* p : *pipeline_passes) {
    if (p->needs_pair() && modules.size() == 1)
      return error_message("the pass '" + p->name +
                           "' needs a partition's forward and backward: give a file with the "
                           "forward's class, then the backward's");
    pipeline.add(*p);
  }
  StageTimer timer;
  Expected<std::vector<passes::PassRun>> runs = std::vector<passes::PassRun>{};
  ForwardBackward graphs;
  if (modules.size() == 2) {
    graphs = as_partition(std::move(modules[0]), std::move(modules[1]));
    runs = pipeline.run(graphs, timer);
  } else {
    runs = pipeline.run(modules[0], timer);
  }
  REMAT_TRY(runs);
  for (const passes::PassRun& run : *runs) {
    if (a.stats) out += run_summary(run) + "\n";
    if (!a.remarks) continue;
    for (const passes::PassRemark& r : run.result.remarks)
      out += "# " + run.name + ": " + r.node + ": " + r.message + "\n";
  }
  auto print = [&](const GraphModule& m) {
    out += print_readable(m, a.flags.options(m)).text + "\n";
  };
  if (modules.size() == 2) {
    print(graphs.forward);
    print(graphs.backward);
  } else {
    print(modules[0]);
  }
  REMAT_TRY(write_file_atomic(a.output, out));
  return kExitOk;
}

}  // namespace

void add_opt_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "opt",
      "Run graph passes by name (--passes=dce,cse,...; --list names them) over a graph file and "
      "print the graph they leave as readable text. A readable file with two classes is a "
      "partition's forward and backward: each graph pass runs on both, and passes that need "
      "both (rng-functionalization) see them together.");
  auto a = std::make_shared<OptArgs>();
  cmd->add_option("file", a->file, "graph file (fxgraph-json or readable text), or - for stdin");
  cmd->add_option("--passes", a->passes, "the passes to run, in order: dce,cse,...");
  cmd->add_flag("--list", a->list, "list the passes there are, with what each does");
  cmd->add_flag("--verify-each", a->verify_each,
                "check the graph's invariants after each pass; a broken one names the pass");
  cmd->add_flag("--print-after-all", a->print_after_all,
                "print the graph after every pass (# after NAME), then the result");
  cmd->add_flag("--stats", a->stats, "say what each pass did (# NAME: erased 2), above the graph");
  cmd->add_flag("--remarks", a->remarks,
                "name each node each pass changed, and how (# NAME: NODE: ...), above the graph");
  cmd->add_option("-o,--output", a->output, "write the result here (whole or not at all)");
  a->flags.add_to(*cmd);
  run_verb(*cmd, a, exit_code, &run_opt);
}

}  // namespace remat::cli
