// parse_readable() of printed generated graphs, 10k to 1M nodes: nodes per second.
#include <benchmark/benchmark.h>

#include <map>

#include "remat/print/printer.h"
#include "remat/print/readable_parser.h"
#include "testing/graph_generator.h"

namespace {

const std::string& text(size_t nodes) {
  static std::map<size_t, std::string> cache;
  auto it = cache.find(nodes);
  if (it == cache.end()) {
    remat::GraphModule m =
        remat::testing::generate_graph({.seed = 11, .num_nodes = nodes, .every_value_kind = false});
    it = cache.emplace(nodes, remat::print_readable(m, remat::PrintOptions::tlparse()).text).first;
  }
  return it->second;
}

void BM_ParseReadable(benchmark::State& state) {
  const std::string& t = text(static_cast<size_t>(state.range(0)));
  size_t nodes = 0;
  for (auto _ : state) {
    remat::Expected<remat::GraphModule> m = remat::parse_readable(t, "bench.txt");
    if (!m) state.SkipWithError("parse failed");
    nodes = m->graph().size();
    state.PauseTiming();  // freeing the graph is not part of parsing
    m = remat::Diagnostic{};
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * nodes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * t.size()));
  state.counters["nodes"] = static_cast<double>(nodes);
}

BENCHMARK(BM_ParseReadable)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
