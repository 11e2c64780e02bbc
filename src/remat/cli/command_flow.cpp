// remat flow FILE: solves a flow-network file's minimum cut the way PyTorch's partitioner does.
#include <fmt/format.h>

#include <absl/container/flat_hash_map.h>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/io/flow_network.h"
#include "remat/partition/min_cut.h"
#include "remat/support/file_io.h"
#include "remat/support/float_repr.h"
#include "remat/support/json_writer.h"

namespace remat::cli {
namespace {

std::string number_text(double v) {
  if (std::isinf(v)) return "inf";
  if (v == std::floor(v) && std::abs(v) < 1e18) return std::to_string(static_cast<int64_t>(v));
  return python_float_repr(v);
}

struct FlowArgs {
  std::string file;
  bool json = false;
  std::string algorithm = "push-relabel";
};

Expected<int> run_flow(const FlowArgs& a) {
  Expected<std::string> text = read_input(a.file, "a flow network (fxgraph-json/1#flow)");
  REMAT_TRY(text);
  Expected<FlowNetwork> net = read_flow_json(*text, display_name(a.file));
  REMAT_TRY(net);
  partition::FlowGraph g;
  absl::flat_hash_map<std::string, int> index;
  for (const std::string& v : net->nodes) index.emplace(v, g.add_vertex(v));
  for (const FlowEdge& e : net->edges) g.add_edge(index.at(e.from), index.at(e.to), e.capacity);
  auto algorithm = a.algorithm == "push-relabel" ? partition::MaxFlowAlgorithm::PushRelabel
                                                 : partition::MaxFlowAlgorithm::BoykovKolmogorov;
  partition::MinCut cut =
      partition::solve_min_cut(g, index.at(net->source), index.at(net->sink), algorithm);
  std::vector<std::string> source_side;
  for (int v = 0; v < g.num_vertices(); ++v) {
    if (cut.source_side[v]) source_side.push_back(g.names()[v]);
  }
  if (a.json) {
    std::string out;
    json::JsonWriter w(out);
    w.begin_object().key("cut_value");
    if (cut.unbounded())
      w.value("inf");
    else if (cut.value == std::floor(cut.value) && std::abs(cut.value) < 1e18)
      w.value(static_cast<int64_t>(cut.value));
    else
      w.value(cut.value);
    w.key("source_side").array(source_side).end_object();
    fmt::print("{}\n", out);
  } else {
    fmt::print("cut value: {}\n", number_text(cut.value));
    if (cut.unbounded()) {
      std::vector<std::string> path;
      for (int v : cut.infinite_path) path.push_back(g.names()[v]);
      fmt::print("unbounded: every edge of this source-sink path is infinite: {}\n",
                 fmt::join(path, " -> "));
    } else {
      fmt::print("source side ({} of {} vertices): {}\n", source_side.size(), g.num_vertices(),
                 fmt::join(source_side, " "));
      std::vector<std::string> edges;
      for (int e : cut.cut_edges)
        edges.push_back(g.names()[g.edges()[e].from] + "->" + g.names()[g.edges()[e].to]);
      fmt::print("cut edges ({}): {}\n", edges.size(), fmt::join(edges, " "));
    }
  }
  return kExitOk;
}

}  // namespace

void add_flow_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "flow",
      "Solve the minimum cut of a flow-network file (fxgraph-json/1#flow): prints the cut value, "
      "the source side (the maximal one, as PyTorch's partitioner takes it) and the cut edges.");
  auto a = std::make_shared<FlowArgs>();
  cmd->add_option("file", a->file, "a flow-network file, or -")->required();
  cmd->add_flag("--json", a->json, R"(print {"cut_value": ..., "source_side": [...]})");
  cmd->add_option("--algorithm", a->algorithm,
                  "max-flow algorithm: push-relabel or boykov-kolmogorov")
      ->check(CLI::IsMember({"push-relabel", "boykov-kolmogorov"}));
  run_verb(*cmd, a, exit_code, &run_flow);
}

}  // namespace remat::cli
