// Load, verify and write a generated fxgraph-json graph of up to 1M nodes; report nodes/s and
// the IR's memory per node. Run: build/bench/bench_graph_io [--benchmark_filter=...]
//
// Memory is measured by counting live heap bytes (operator new/delete below) around a load,
// so it includes every allocation the IR makes: nodes, argument lists, use lists, the name
// index and the namespace. "strings" counts node-name text that did not fit std::string's
// inline buffer, which the aim (<= 300 bytes/node excluding strings) leaves out.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <simdjson.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <new>

#include "remat/io/graph_json.h"
#include "remat/ir/verify.h"
#include "testing/graph_generator.h"

namespace {

std::atomic<int64_t> g_live_bytes{0};

}  // namespace

void* operator new(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  g_live_bytes += static_cast<int64_t>(malloc_usable_size(p));
  return p;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  g_live_bytes -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  operator delete(p);
}

namespace {

using remat::GraphModule;

/// The generated graph and its JSON text, built once per size.
const std::string& graph_text(size_t nodes) {
  static std::map<size_t, std::string> cache;
  auto it = cache.find(nodes);
  if (it == cache.end()) {
    GraphModule m =
        remat::testing::generate_graph({.seed = 42, .num_nodes = nodes, .every_value_kind = false});
    it = cache.emplace(nodes, remat::write_graph_json(m)).first;
  }
  return it->second;
}

int64_t name_heap_bytes(const GraphModule& m) {
  int64_t bytes = 0;
  for (const remat::Node* n : m.graph().nodes())
    if (n->name().capacity() > 15) bytes += static_cast<int64_t>(n->name().capacity() + 1);
  return bytes;
}

void BM_Load(benchmark::State& state) {
  const std::string& text = graph_text(static_cast<size_t>(state.range(0)));
  size_t nodes = 0;
  int64_t ir_bytes = 0, string_bytes = 0;
  for (auto _ : state) {
    int64_t before = g_live_bytes.load();
    remat::Expected<GraphModule> m = remat::read_graph_json(text, "bench");
    if (!m) state.SkipWithError("load failed");
    ir_bytes = g_live_bytes.load() - before;
    nodes = m->graph().size();
    string_bytes = name_heap_bytes(*m);
    state.PauseTiming();  // freeing the graph is not part of loading it
    m = remat::Diagnostic{};
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * nodes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["json_bytes/node"] = static_cast<double>(text.size()) / static_cast<double>(nodes);
  state.counters["ir_bytes/node"] = static_cast<double>(ir_bytes) / static_cast<double>(nodes);
  state.counters["ir_bytes/node_excl_strings"] =
      static_cast<double>(ir_bytes - string_bytes) / static_cast<double>(nodes);
}

/// The JSON parse alone (simdjson DOM), to separate parsing from building the IR.
void BM_ParseJsonOnly(benchmark::State& state) {
  const std::string& text = graph_text(static_cast<size_t>(state.range(0)));
  size_t nodes = 0;
  for (auto _ : state) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::element root;
    if (parser.parse(padded).get(root)) state.SkipWithError("parse failed");
    nodes = simdjson::dom::array(root["nodes"]).size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * nodes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void BM_Verify(benchmark::State& state) {
  remat::Expected<GraphModule> m =
      remat::read_graph_json(graph_text(static_cast<size_t>(state.range(0))), "bench");
  for (auto _ : state) {
    remat::Diagnostics problems = remat::verify(*m);
    if (!problems.empty()) state.SkipWithError("verify failed");
    benchmark::DoNotOptimize(problems);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * m->graph().size()));
}

void BM_Write(benchmark::State& state) {
  remat::Expected<GraphModule> m =
      remat::read_graph_json(graph_text(static_cast<size_t>(state.range(0))), "bench");
  for (auto _ : state) {
    std::string out = remat::write_graph_json(*m);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * m->graph().size()));
}

BENCHMARK(BM_Load)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseJsonOnly)->Arg(10'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Verify)->Arg(10'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Write)->Arg(10'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
