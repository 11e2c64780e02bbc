// print_readable() of generated graphs from 10k to 1M nodes: nodes per second, bytes of text.
// (torch.fx's own python_code is not compared here: python3-torch is not installed on the
// machines this project builds on.)
#include <benchmark/benchmark.h>

#include <map>

#include "remat/print/printer.h"
#include "testing/graph_generator.h"

namespace {

const remat::GraphModule& graph(size_t nodes) {
  static std::map<size_t, remat::GraphModule> cache;
  auto it = cache.find(nodes);
  if (it == cache.end())
    it = cache
             .emplace(nodes, remat::testing::generate_graph(
                                 {.seed = 7, .num_nodes = nodes, .every_value_kind = false}))
             .first;
  return it->second;
}

void BM_PrintReadable(benchmark::State& state) {
  const remat::GraphModule& m = graph(static_cast<size_t>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    remat::PrintedCode p = remat::print_readable(m, remat::PrintOptions::tlparse());
    bytes = p.text.size();
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * m.graph().size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["nodes"] = static_cast<double>(m.graph().size());
  state.counters["text_bytes/node"] =
      static_cast<double>(bytes) / static_cast<double>(m.graph().size());
}

BENCHMARK(BM_PrintReadable)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
