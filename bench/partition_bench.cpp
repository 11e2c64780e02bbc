// The min-cut partitioner on GPT-2 joint graphs from 1 to 4,096 checkpointed blocks (to about a
// million nodes) and on PyTorch issue #145081's pattern (long chains of tensors with many users):
// joint-graph nodes and milliseconds per partition. bench/compare_partition.py times functorch's
// partitioner on the same model where python3-torch is installed.
#include <benchmark/benchmark.h>

#include <map>

#include "remat/autodiff/joint_graph.h"
#include "remat/models/model_zoo.h"
#include "remat/partition/min_cut_partition.h"
#include "remat/trace/tracer.h"

namespace {

const remat::GraphModule& gpt2_joint(int64_t layers) {
  static std::map<int64_t, remat::GraphModule> cache;
  auto it = cache.find(layers);
  if (it == cache.end()) {
    remat::models::ModelOptions o;
    o.layers = layers;
    o.checkpoint.mode = remat::models::CheckpointPlan::Mode::EachLayer;
    auto fwd = remat::models::find_model("gpt2")->trace(o);
    auto joint = remat::autodiff::build_joint_graph(*fwd);
    it = cache.emplace(layers, std::move(*joint)).first;
  }
  return it->second;
}

// #145081: 32 tensors, each step subtracts a neighbour from every tensor.
const remat::GraphModule& chain_joint(int64_t steps) {
  static std::map<int64_t, remat::GraphModule> cache;
  auto it = cache.find(steps);
  if (it == cache.end()) {
    using namespace remat::trace;
    Tracer tracer;
    std::vector<Tensor> v;
    for (int i = 0; i < 32; ++i)
      v.push_back(tracer.input("x" + std::to_string(i), {64}, remat::DType::Float32, true));
    for (int64_t s = 0; s < steps; ++s) {
      std::vector<Tensor> next;
      for (int i = 0; i < 32; ++i) next.push_back(v[i] - v[(i + 1 + s) % 32]);
      v = next;
    }
    tracer.output(v);
    auto joint = remat::autodiff::build_joint_graph(tracer.finish());
    it = cache.emplace(steps, std::move(*joint)).first;
  }
  return it->second;
}

void run(benchmark::State& state, const remat::GraphModule& joint) {
  size_t saved = 0;
  for (auto _ : state) {
    auto p = remat::partition::min_cut_partition(joint);
    if (!p) {
      state.SkipWithError("partition failed");
      return;
    }
    saved = p->graphs.saved_values.size();
    // Per-pass milliseconds as counters: where the time goes at each size.
    for (const remat::StageTime& s : p->stages)
      state.counters[s.key().substr(0, 12) + "_ms"] = s.ms;
  }
  state.counters["nodes"] = static_cast<double>(joint.graph().size());
  state.counters["saved"] = static_cast<double>(saved);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * joint.graph().size()));
}

void BM_MinCutGpt2(benchmark::State& state) {
  run(state, gpt2_joint(state.range(0)));
}
// Copying the joint: what creating a node costs, the partitioner's floor for every graph it makes.
void BM_CloneGpt2(benchmark::State& state) {
  const remat::GraphModule& joint = gpt2_joint(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(joint.clone());
  state.counters["nodes"] = static_cast<double>(joint.graph().size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * joint.graph().size()));
}
void BM_MinCutManyUsersChain(benchmark::State& state) {
  run(state, chain_joint(state.range(0)));
}

BENCHMARK(BM_MinCutGpt2)
    ->RangeMultiplier(4)
    ->Range(1, 4096)
    ->Arg(32)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_CloneGpt2)->Arg(16)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MinCutManyUsersChain)
    ->Arg(8)
    ->Arg(64)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
