// SPDX-License-Identifier: Apache-2.0
// bench_search_ascend.cpp: the reference system's own search cases, as
// `ndsearch search` runs them with every default dimension: DeepSeek-V3 in
// HyperParallel's legacy schema (examples/deepseek-v3-hyperparallel) on 1024
// A3 dies, global batch 2048, seq 4096; and Qwen3-72B
// (../shared/configs/hyperparallel/hyper_qwen3_72b.yaml, where present) on
// 128 A2, its own batch and sequence. Both on the reference's device figures
// (ascend-a3-nd / ascend-a2-nd; a build before those ids, the same figures
// under ascend-a3 / ascend-a2), so that two commits compare the same space.
// Items/s is candidates/s. Arg: threads (-j).
//   build/bench/bench_search_ascend
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "core/input/device_catalog.hpp"
#include "core/input/machine.hpp"
#include "core/input/parse_config.hpp"
#include "core/search/search.hpp"

namespace {

using namespace ndsearch;

// The reference's figures: `<id>-nd`, or `<id>` in a build before them.
const Device& reference_device(const DeviceCatalog& catalog, const std::string& id) {
  for (const Device& d : catalog.devices())
    if (d.id == id + "-nd") return d;
  return catalog.resolve(id);
}

void search(benchmark::State& state, const std::string& config, const std::string& device,
            int64_t devices, int64_t global_batch, int64_t seq_len) {
  if (!std::filesystem::exists(config)) {
    state.SkipWithError(("no " + config).c_str());
    return;
  }
  PluginSearch plugins;
  plugins.install_dir = NDS_BENCH_PLUGINS;
  const PluginRegistry registry = PluginRegistry::load(plugins);
  const DeviceCatalog catalog = DeviceCatalog::load(registry, false);
  ParseOptions parse;
  if (seq_len > 0) parse.overrides.seq_len = seq_len;
  if (global_batch > 0) parse.overrides.global_batch = global_batch;
  Model model = parse_config(registry, config, parse);
  const Device& d = reference_device(catalog, device);
  const Machine machine = make_machine(catalog, d.id, devices);
  SearchOptions options;
  options.space.devices = devices;
  options.space.global_batch = global_batch > 0 ? global_batch : model.training.global_batch;
  options.space.pipeline_bound = machine.pipeline_bound();
  options.space.searched = default_dimensions();
  options.budget = memory_budget(*machine.device, model, std::nullopt, std::nullopt);
  options.threads = static_cast<unsigned>(state.range(0));
  uint64_t tested = 0;
  for (auto _ : state) {
    const SearchResult r = run_search(registry, model, *machine.device, options);
    tested += r.counts.tested;
    benchmark::DoNotOptimize(r.ranking.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(tested));
}

void BM_SearchReferenceDeepSeekV3On1024A3(benchmark::State& state) {
  search(state, NDS_BENCH_EXAMPLES "/deepseek-v3-hyperparallel/deepseek_v3.yaml", "ascend-a3", 1024,
         2048, 4096);
}
void BM_SearchReferenceQwen3_72BOn128A2(benchmark::State& state) {
  search(state, NDS_BENCH_SHARED_CONFIGS "/hyperparallel/hyper_qwen3_72b.yaml", "ascend-a2", 128, 0,
         0);
}
BENCHMARK(BM_SearchReferenceDeepSeekV3On1024A3)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SearchReferenceQwen3_72BOn128A2)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
