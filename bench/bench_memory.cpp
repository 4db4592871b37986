// SPDX-License-Identifier: Apache-2.0
// bench_memory.cpp: pricing one candidate, the search's inner step: its
// memory (the shipped memory passes, compiled once for Llama-3.1-70B on H100,
// through the core's evaluator and the C ABI; buffers reused, no allocation)
// and its time (the time model). Candidate: tp 8, pp 4, dp 2, full recompute.
//   build/bench/bench_memory
#include <benchmark/benchmark.h>

#include "core/input/device_catalog.hpp"
#include "core/input/parse_config.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"

namespace {

using namespace ndsearch;

struct Setup {
  PluginRegistry registry;
  DeviceCatalog catalog;
  Model model;
  nds_strategy strategy{};
  Placement placement;
};

Setup& setup() {
  static Setup s = [] {
    Setup out;
    PluginSearch search;
    search.install_dir = NDS_BENCH_PLUGINS;
    out.registry = PluginRegistry::load(search);
    out.catalog = DeviceCatalog::load(out.registry, false);
    ParseOptions options;
    options.overrides.seq_len = 8192;
    options.overrides.global_batch = 64;
    out.model = parse_config(out.registry, NDS_BENCH_CONFIG, options);
    out.strategy =
        resolve_strategy(parse_strategy("tp=8,pp=4,dp=2,mbs=1,recompute=full"), out.model, 64, 64);
    out.placement = place_layers(out.strategy, out.model, false);
    return out;
  }();
  return s;
}

void BM_TimeOfOneCandidate(benchmark::State& state) {
  Setup& s = setup();
  Placement placement = s.placement;
  placement.strategy = s.strategy;
  const nds_candidate candidate = placement.candidate();
  const CompiledModel compiled(s.model, s.catalog.resolve("nvidia-h100-sxm"));
  const TimeModel time(compiled);
  for (auto _ : state) benchmark::DoNotOptimize(time.estimate(candidate, 64));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TimeOfOneCandidate);

void BM_MemoryOfOneCandidate(benchmark::State& state) {
  PluginSearch search;
  search.install_dir = NDS_BENCH_PLUGINS;
  const PluginRegistry registry = PluginRegistry::load(search);
  const DeviceCatalog catalog = DeviceCatalog::load(registry, false);
  ParseOptions options;
  options.overrides.seq_len = 8192;
  options.overrides.global_batch = 64;
  Model model = parse_config(registry, NDS_BENCH_CONFIG, options);
  const nds_strategy s =
      resolve_strategy(parse_strategy("tp=8,pp=4,dp=2,mbs=1,recompute=full"), model, 64, 64);
  const Placement placement = place_layers(s, model, false);
  const nds_candidate candidate = placement.candidate();
  const MemoryPasses passes(registry, model, catalog.resolve("nvidia-h100-sxm"));
  MemoryEvaluator evaluator(passes, 64);
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
