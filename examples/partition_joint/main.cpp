// partition_joint [JOINT.json]: the joint graph of a 2-layer GPT-2 with each layer checkpointed
// (or the fxgraph-json file given), partitioned by remat's min-cut partitioner.
#include <cstdio>

#include "remat/autodiff/joint_graph.h"
#include "remat/io/graph_json.h"
#include "remat/models/model_zoo.h"
#include "remat/partition/min_cut_partition.h"
#include "remat/print/printer.h"

namespace {

remat::Expected<remat::GraphModule> joint_graph(int argc, char** argv) {
  if (argc > 1) return remat::load_graph_json(argv[1]);
  remat::models::ModelOptions options;
  options.layers = 2;
  options.checkpoint.mode = remat::models::CheckpointPlan::Mode::EachLayer;
  remat::Expected<remat::GraphModule> forward = remat::models::find_model("gpt2")->trace(options);
  if (!forward) return std::move(forward).take_errors();
  return remat::autodiff::build_joint_graph(*forward);
}

}  // namespace

int main(int argc, char** argv) {
  remat::Expected<remat::GraphModule> joint = joint_graph(argc, argv);
  if (!joint) {
    std::fputs(remat::format_all(joint.errors()).c_str(), stderr);
    return 2;
  }
  auto partition = remat::partition::min_cut_partition(*joint);
  if (!partition) {
    std::fputs(remat::format_all(partition.errors()).c_str(), stderr);
    return 1;
  }
  // The report: every saved value with its bytes and why, every recomputed node and why.
  std::fputs(partition->report.text().c_str(), stdout);
  std::printf("\nforward graph (%zu nodes):\n", partition->graphs.forward.graph().size());
  std::fputs(remat::print_readable(partition->graphs.forward).text.c_str(), stdout);
  return 0;
}
