// SPDX-License-Identifier: Apache-2.0
// bench_plugin_call.cpp: the cost of pricing one candidate's memory through a
// plugin over the C ABI, one candidate per call against batches, with the SDK
// template pass (a per-layer sum over the rank's layers). It backs the ABI's
// choice of batched evaluate calls on plain data (abi/conventions.md).
//   build/bench/bench_plugin_call --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <vector>

#include "core/plugin_host/registry.hpp"
#include "core/plugin_host/sample_inputs.hpp"

namespace {

using namespace ndsearch;

struct Pass {
  std::unique_ptr<LoadedPlugin> plugin =
      load_plugin(NDS_BENCH_MEMORY_PASS, std::make_shared<const PluginOptions>());
  const nds_memory_v1& table = *plugin->interfaces.memory;
  SampleInputs sample;
  nds_memory_compiled* compiled = nullptr;
  Pass() { table.compile(&sample.compile_input(), &compiled); }
  ~Pass() { table.release(compiled); }
};

void BM_MemoryPassEvaluate(benchmark::State& state) {
  static Pass pass;
  const size_t batch = static_cast<size_t>(state.range(0));
  const uint32_t terms = NDS_MEMORY_TERM_COUNT_V1;
  const size_t per_item = terms * static_cast<size_t>(pass.sample.candidate().strategy->pp);
  std::vector<double> bytes(batch * per_item), prior(per_item, 0.0);
  std::vector<nds_memory_item> items(batch);
  for (size_t i = 0; i < batch; ++i) {
    items[i] = {sizeof(nds_memory_item),
                &pass.sample.candidate(),
                terms,
                prior.data(),
                bytes.data() + i * per_item,
                NDS_OK,
                nullptr};
  }
  for (auto _ : state) {
    pass.table.evaluate(pass.compiled, items.data(), batch, sizeof(nds_memory_item));
    benchmark::DoNotOptimize(bytes.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch));
}
BENCHMARK(BM_MemoryPassEvaluate)->Arg(1)->Arg(16)->Arg(256)->Arg(4096);

}  // namespace

BENCHMARK_MAIN();
