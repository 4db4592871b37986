// SPDX-License-Identifier: Apache-2.0
// test_pipeline_schedule.cpp: the schedules' runs (core/price/time/pipeline_schedule.hpp)
// against their hand derivations, and the time model's step against the run.
#include <catch2/catch.hpp>

#include <map>
#include <numeric>

#include "core/price/time/pipeline_schedule.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "tests/support/gpt_memory.hpp"

using namespace ndsearch;

namespace {

// Every chunk of `s` with the same forward and backward seconds.
std::vector<ChunkTimes> alike(const nds_strategy& s, double forward, double backward) {
  return std::vector<ChunkTimes>(static_cast<size_t>(s.pp) * s.vpp,
                                 ChunkTimes{forward, backward, 0, 0});
}

double run(const char* text, const std::vector<ChunkTimes>& times,
           std::vector<PipelineSlice>* slices = nullptr) {
  PipelineRun pipeline;
  return pipeline.run(test::strategy(text), times.data(), slices);
}

}  // namespace

TEST_CASE("Ranks alike: 1F1B and GPipe take m + p - 1 slots, interleaving m + (p - 1)/v") {
  // Narayanan et al. 2021 §2.2: t_mb = F + B = 1 + 2 per micro-batch; the
  // bubble is (p - 1)·t_mb, (p - 1)·t_mb / v interleaved (each chunk v times shorter).
  const nds_strategy s = test::strategy("pp=4,mbn=8");
  CHECK(run("pp=4,mbn=8", alike(s, 1, 2)) == Approx((8 + 3) * 3.0));
  CHECK(run("pp=4,mbn=8,schedule=gpipe", alike(s, 1, 2)) == Approx((8 + 3) * 3.0));
  const nds_strategy v2 = test::strategy("pp=4,vpp=2,mbn=8");
  CHECK(run("pp=4,vpp=2,mbn=8", alike(v2, 0.5, 1)) == Approx(8 * 3.0 + 3.0 / 2 * 3.0));
  // Fewer micro-batches than stages: 1F1B is GPipe, (m + p - 1) slots still.
  CHECK(run("pp=4,mbn=2", alike(s, 1, 2)) == Approx((2 + 3) * 3.0));
}

TEST_CASE("An uneven pipeline runs at its slowest rank's pace and idles the others' shortfall") {
  // 1F1B with the last rank the slowest (the output head's): its work
  // m·t_last, and the first micro-batch's forward and the last one's
  // backward through the other ranks: Σ_{r < p-1} t_r + m·t_last
  // (a permutation flow shop of identical jobs, Σ t + (m - 1)·max t).
  const nds_strategy s = test::strategy("pp=4,mbn=8");
  std::vector<ChunkTimes> times = alike(s, 1, 2);
  times[3] = {2, 4, 0, 0};
  CHECK(run("pp=4,mbn=8", times) == Approx(3 * 3.0 + 8 * 6.0));
  // The slowest rank first instead: its forwards feed the others, whose
  // work the last micro-batch still crosses: Σ t + (m - 1)·max t bounds it.
  std::reverse(times.begin(), times.end());
  const double first_slowest = run("pp=4,mbn=8", times);
  CHECK(first_slowest >= 8 * 6.0);
  CHECK(first_slowest <= 3 * 3.0 + 8 * 6.0);
}

TEST_CASE("Each rank runs one forward and one backward per micro-batch and chunk, in order") {
  std::vector<PipelineSlice> slices;
  const nds_strategy s = test::strategy("pp=4,vpp=2,mbn=8");
  const double end = run("pp=4,vpp=2,mbn=8", alike(s, 0.5, 1), &slices);
  REQUIRE(slices.size() == 4 * 2 * 8 * 2);
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, int>, int> seen;
  double last = 0;
  for (size_t i = 0; i < slices.size(); ++i) {
    const PipelineSlice& x = slices[i];
    ++seen[{x.rank, x.chunk, x.micro_batch, static_cast<int>(x.op)}];
    last = std::max(last, x.end);
    // A rank's slices do not overlap.
    if (i > 0 && slices[i - 1].rank == x.rank) CHECK(x.start >= slices[i - 1].end - 1e-12);
  }
  CHECK(seen.size() == slices.size());
  CHECK(last == end);
  // Megatron's order on rank 0: (p - 1)·2 + (v - 1)·p + 1 = 11 forwards before its first backward.
  size_t forwards = 0;
  while (slices[forwards].op == PipelineOp::forward) ++forwards;
  CHECK(forwards == 11);
}

TEST_CASE(
    "The time model's pipeline time is the schedule's run where the last rank is the slowest") {
  // A 16-layer GPT with a vocabulary of 256 000 on pp 4: the output head
  // makes the last rank the slowest, where the closed forms are exact (a
  // flow shop of identical jobs): the run of the chunks' seconds the time
  // model prices ends where its pipeline time does.
  Model m = test::gpt({16, 1024, 16, 4096, 256000, 2048, "bf16", "fp32", "fp32", 2});
  const CompiledModel compiled(m, test::shipped_device("nvidia-h100-sxm"));
  const TimeModel time(compiled);
  PipelineRun pipeline;
  for (const char* text :
       {"pp=4,mbn=8", "pp=4,mbn=8,schedule=gpipe", "pp=4,vpp=2,mbn=8", "pp=4,mbn=3"}) {
    const nds_strategy s = test::strategy(text);
    const Placement placement = place_layers(s, m, false);
    std::vector<ChunkTimes> times;
    const TimeEstimate e = time.estimate(placement.candidate(), 4, nullptr, nullptr, &times);
    INFO(text);
    CHECK(pipeline.run(s, times.data()) == Approx(e.pipeline_s).epsilon(1e-3));
    CHECK(e.parts.bubble > 0);
  }
}

TEST_CASE(
    "Where another rank is the slowest, the closed form bounds the run within a few percent") {
  // 10 layers on pp 4 split 3 3 2 2: the first two ranks are the slowest.
  // The run idles less than Σ t + (m - 1)·max t says (the last micro-batch's
  // way through the lighter ranks overlaps the slow ranks' last backwards).
  Model m = test::gpt({10, 1024, 16, 4096, 32000, 2048, "bf16", "fp32", "fp32", 2});
  const CompiledModel compiled(m, test::shipped_device("nvidia-h100-sxm"));
  const TimeModel time(compiled);
  const nds_strategy s = test::strategy("pp=4,mbn=8");
  const Placement placement = place_layers(s, m, false);
  REQUIRE(placement.chunk_layers == std::vector<uint32_t>{3, 3, 2, 2});
  std::vector<ChunkTimes> times;
  const TimeEstimate e = time.estimate(placement.candidate(), 4, nullptr, nullptr, &times);
  PipelineRun pipeline;
  const double run = pipeline.run(s, times.data());
  CHECK(run <= e.pipeline_s * (1 + 1e-9));
  CHECK(run >= e.pipeline_s * 0.95);
}
