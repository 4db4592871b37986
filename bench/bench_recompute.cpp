// SPDX-License-Identifier: Apache-2.0
// bench_recompute.cpp: the per-layer recompute choice of one rank
// (plugins/common/recompute/recompute_choice.hpp), which the search runs per rank of every
// candidate: ns per rank, scratch sized once outside the loop.
//   build/bench/bench_recompute
//
// Byte and time values are of the right order (Korthikanti et al. 2022,
// Table 2: a layer keeps s·b·h·(34 + 5·a·s/h) bytes per micro-batch, divided
// by tp with sequence parallelism) but the cost depends on the shape only:
// the groups, their layer counts and how much of the rank must be recomputed.
#include <benchmark/benchmark.h>

#include <vector>

#include "plugins/common/recompute/recompute_choice.hpp"

namespace {

using namespace ndsearch;

constexpr int64_t MB = 1'000'000;

void run(benchmark::State& state, const std::vector<RecomputeGroup>& groups, RecomputeRank rank) {
  rank.groups = groups.data();
  rank.group_count = groups.size();
  std::vector<RecomputeFrontierPoint> points(
      recompute_scratch_points(groups.data(), groups.size()));
  std::vector<RecomputeGroupChoice> out(groups.size());
  const RecomputeScratch scratch{points.data(), points.size()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(choose_recompute(rank, scratch, out.data()));
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["scratch_points"] = static_cast<double>(points.size());
}

// DeepSeek-V3 (61 layers: 3 dense, 58 MoE) over pp 16, first rank: 3 dense
// layers and 1 MoE layer, 16 micro-batches in flight, the MoE layer ends the
// warm-up. tp 8, s 4096, h 7168: ~125 MB per layer per micro-batch for the
// dense layer, the MoE layer's routed experts about three times that.
void BM_RecomputeDeepSeekV3Rank(benchmark::State& state) {
  const std::vector<RecomputeGroup> groups{
      {3, {16 * 20 * MB, 16 * 0.0004}, {16 * 121 * MB, 16 * 0.0030}},
      {1, {16 * 20 * MB, 16 * 0.0004}, {16 * 370 * MB, 16 * 0.0090}}};
  RecomputeRank rank;
  rank.bytes_without_recompute = 90'000 * MB;
  rank.budget_bytes = 81'000 * MB;  // 9 GB of the 11.7 GB all-full saves
  rank.warmup_group = 1;
  rank.warmup_working_set_bytes[0] = 0;
  rank.warmup_working_set_bytes[1] = 20 * MB;
  rank.warmup_working_set_bytes[2] = 374 * MB;
  run(state, groups, rank);
}
BENCHMARK(BM_RecomputeDeepSeekV3Rank);

// A 126-layer dense model (Llama-3.1-405B's depth) at pp 1: one group of 126
// layers, one micro-batch in flight, the last layer ends the warm-up; about
// half the layers' saving is needed.
void BM_Recompute126DenseLayersPp1(benchmark::State& state) {
  const std::vector<RecomputeGroup> groups{{126, {40 * MB, 0.0005}, {240 * MB, 0.0040}}};
  RecomputeRank rank;
  rank.bytes_without_recompute = 80'000 * MB;
  rank.budget_bytes = 65'000 * MB;
  rank.warmup_group = 0;
  rank.warmup_working_set_bytes[1] = 40 * MB;
  rank.warmup_working_set_bytes[2] = 250 * MB;
  run(state, groups, rank);
}
BENCHMARK(BM_Recompute126DenseLayersPp1);

// The frontier's worst case of the search's shapes: vpp 4 of two kinds, one
// layer per group (8 groups), so 7 frontier levels of up to 3^k points.
void BM_RecomputeEightSingleLayerGroups(benchmark::State& state) {
  std::vector<RecomputeGroup> groups;
  for (int chunk = 0; chunk < 4; ++chunk) {
    const int64_t in_flight = 16 - 2 * chunk;
    groups.push_back({1, {in_flight * 20 * MB, 16 * 0.0004}, {in_flight * 121 * MB, 16 * 0.003}});
    groups.push_back({1, {in_flight * 20 * MB, 16 * 0.0004}, {in_flight * 370 * MB, 16 * 0.009}});
  }
  RecomputeRank rank;
  rank.bytes_without_recompute = 90'000 * MB;
  rank.budget_bytes = 80'000 * MB;
  run(state, groups, rank);
}
BENCHMARK(BM_RecomputeEightSingleLayerGroups);

}  // namespace

BENCHMARK_MAIN();
