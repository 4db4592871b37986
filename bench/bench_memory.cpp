// SPDX-License-Identifier: Apache-2.0
// bench_memory.cpp: the memory of one candidate, the search's inner step
// (issue 5): the shipped memory passes, compiled once for Llama-3.1-70B on
// H100, evaluated on one candidate (tp 8, pp 4, dp 2, full recompute) per
// iteration, through the core's evaluator and the C ABI. Candidate buffers
// are reused: no allocation per candidate.
//   build/bench/bench_memory
#include <benchmark/benchmark.h>

#include "core/hardware/device_catalog.hpp"
#include "core/memory/memory_evaluator.hpp"
#include "core/model/parse_config.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"

namespace {

using namespace ndsearch;

void BM_MemoryOfOneCandidate(benchmark::State& state) {
  PluginSearch search;
  search.install_dir = NDS_BENCH_PLUGINS;
  const PluginRegistry registry = PluginRegistry::load(search);
  const DeviceCatalog catalog = DeviceCatalog::load(registry, false);
  ParseOptions options;
  options.overrides.seq_len = 8192;
  options.overrides.global_batch = 64;
  Model model = parse_config(registry, NDS_BENCH_CONFIG, options);
  const nds_strategy s = resolve_strategy(parse_strategy("tp=8,pp=4,dp=2,mbs=1,recompute=full"), model, 64, 64);
  const Placement placement = place_layers(s, model, false);
  const nds_candidate candidate = placement.candidate();
  MemoryEvaluator evaluator(registry, model, catalog.resolve("nvidia-h100-sxm"), 64);
  std::vector<RankMemory> ranks(4);
  for (auto _ : state) {
    benchmark::DoNotOptimize(evaluator.evaluate(candidate, ranks));
    benchmark::DoNotOptimize(ranks.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MemoryOfOneCandidate);

}  // namespace

BENCHMARK_MAIN();
