// Tracing the zoo's gpt2 with 4 to 64 checkpointed blocks: nodes recorded per second, including
// shape inference, naming, stack traces and tags. bench/compare_trace.py times PyTorch's make_fx
// on the same model where python3-torch is installed.
#include <benchmark/benchmark.h>

#include "remat/models/model_zoo.h"

namespace {

void BM_TraceGpt2(benchmark::State& state) {
  remat::models::ModelOptions o;
  o.layers = state.range(0);
  o.hidden = 64;
  o.seq = 16;
  o.checkpoint.mode = remat::models::CheckpointPlan::Mode::EachLayer;
  const remat::models::ModelInfo* gpt2 = remat::models::find_model("gpt2");
  size_t nodes = 0;
  for (auto _ : state) {
    auto m = gpt2->trace(o);
    if (!m) {
      state.SkipWithError("trace failed");
      return;
    }
    nodes = m->graph().size();
    benchmark::DoNotOptimize(m);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * nodes));
  state.counters["nodes"] = static_cast<double>(nodes);
}

BENCHMARK(BM_TraceGpt2)->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
