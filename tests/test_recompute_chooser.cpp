// SPDX-License-Identifier: Apache-2.0
// test_recompute_chooser.cpp: the per-layer recompute strategy through the
// host (core/price/recompute/recompute_chooser.hpp) with the shipped memory passes
// and time model: the menu's probes, the count a budget admits, the layout
// per layer, and eval's per-stage report of it.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/input/parse_config.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/price/recompute/recompute_chooser.hpp"
#include "core/strategy/checks.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;

namespace {

// tests/fixtures/configs/hf/llama-3.1-8b.json: 32 alike layers, with fp32
// gradients: with bf16 ones (an HF config's default) the optimizer step's
// fp32 copy of the gradient shard (4 bytes a parameter at dp 1, 8 GB here)
// reuses the activations' memory and sets a floor under the peak that
// recompute cannot lower, so the peak would not fall by f per layer.
Model llama_8b() {
  ParseOptions options;
  options.overrides.seq_len = 4096;
  options.overrides.global_batch = 64;
  Model m = parse_config(test::shipped_plugins(),
                         std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/llama-3.1-8b.json",
                         options);
  m.training.grads_dtype = NDS_DTYPE_FP32;
  return m;
}

// tp 2 (sp), pp 2, dp 1, mbs 1, mbn 64, every layer kept: 16 layers a stage,
// rank 0 holding min(pp - r, mbn) = 2 micro-batches in flight, rank 1 one.
nds_strategy two_stages(const Model& model) {
  nds_strategy s = resolve_strategy(parse_strategy("tp=2,pp=2,dp=1,mbs=1,recompute=none,zero=1"),
                                    model, 4, model.training.global_batch, nullptr);
  return s;
}

// Each rank's peak with the first `full` layers of each stage fully recomputed.
std::vector<double> peaks_with_full(MemoryEvaluator& memory, const Model& model,
                                    const nds_strategy& s, uint32_t full) {
  Placement p = place_layers(s, model, false);
  p.layer_option.assign(static_cast<size_t>(model.decoder_layers()), NDS_LAYER_KEEP);
  for (uint32_t r = 0; r < 2; ++r)
    for (uint32_t k = 0; k < full; ++k) p.layer_option[p.chunk_first_layer[r] + k] = NDS_LAYER_FULL;
  std::vector<RankMemory> ranks;
  REQUIRE(memory.evaluate(p.candidate(), ranks).empty());
  return {ranks[0].peak(), ranks[1].peak()};
}

}  // namespace

TEST_CASE(
    "A stage budget that admits exactly k fully recomputed layers gets k, at each rank its own k") {
  Model model = llama_8b();
  const Device& h100 = test::shipped_device("nvidia-h100-sxm");
  const nds_strategy s = two_stages(model);
  REQUIRE(first_refusal_id(s, model, 4, model.training.global_batch) == nullptr);
  const MemoryPasses passes(test::shipped_plugins(), model, h100);
  MemoryEvaluator memory(passes, 2);
  // The passes' own numbers: a rank's peak falls by the same f for each more
  // full layer (alike layers), after the working set W of the layer rebuilt in
  // the backward is charged with the first: P(k) = P(0) - k·f + W.
  const std::vector<double> p0 = peaks_with_full(memory, model, s, 0),
                            p1 = peaks_with_full(memory, model, s, 1),
                            p2 = peaks_with_full(memory, model, s, 2),
                            p5 = peaks_with_full(memory, model, s, 5);
  const double f0 = p1[0] - p2[0];
  REQUIRE(f0 > 0);
  CHECK(p2[0] - p5[0] == Approx(3 * f0));
  // Rank 0 holds 2 micro-batches, rank 1 one: rank 0's layer frees twice as much.
  CHECK(f0 == Approx(2 * (p1[1] - p2[1])));
  // A budget of exactly P(5) on rank 0: 5 layers fit, 4 do not. Rank 1 then
  // (k = ceil((P(0) + W - B) / f) by its own f and W) needs fewer.
  const double budget = p5[0];
  const double f1 = p1[1] - p2[1], w1 = p1[1] - p0[1] + f1;
  const auto k1 = static_cast<uint32_t>(std::max(0.0, std::ceil((p0[1] + w1 - budget) / f1)));
  INFO("rank 1 needs " << k1);
  // Selective recompute frees nothing here: with flash attention no s² scores
  // are kept (Korthikanti et al.'s selective set is the attention core).
  Placement p = place_layers(s, model, false);
  std::vector<RankMemory> ranks;
  REQUIRE(memory.evaluate(p.candidate(), ranks).empty());
  RecomputeSettings per_layer;
  per_layer.strategy = "per-layer";
  const CompiledModel compiled(model, h100);
  const RecomputeStrategy strategy(test::shipped_plugins(), model, h100, per_layer.strategy);
  RecomputeChooser chooser(compiled, per_layer, &strategy, 2);
  const TimeModel time(compiled);
  const RecomputeOutcome outcome = chooser.choose(p, memory, time, budget, 0, ranks);
  CHECK(outcome.fits);
  uint32_t full[2] = {0, 0};
  for (uint32_t r = 0; r < 2; ++r)
    for (uint32_t k = 0; k < 16; ++k)
      full[r] += p.layer_option[p.chunk_first_layer[r] + k] == NDS_LAYER_FULL;
  CHECK(full[0] == 5);
  CHECK(full[1] == k1);
  CHECK(outcome.summary.full_layers == 5 + k1);
  CHECK(outcome.summary.selective_layers == 0);
  // The first layers of each stage (reference §5.1 counts "the first n").
  CHECK(p.layer_option[0] == NDS_LAYER_FULL);
  CHECK(p.layer_option[4] == NDS_LAYER_FULL);
  CHECK(p.layer_option[5] == NDS_LAYER_KEEP);
  CHECK(p.strategy.recompute == NDS_RECOMPUTE_FULL);
  CHECK(p.chunk_recomputed_layers[0] == 5);
  CHECK(ranks[0].peak() == Approx(p5[0]));
}

TEST_CASE("eval with a per-layer strategy reports each stage's layers by option and prices them") {
  Model model = llama_8b();
  const Machine machine = make_machine(test::shipped_devices(), "nvidia-h100-sxm", 4);
  EvaluationRequest request;
  request.strategy = "tp=2,pp=2,dp=1,mbs=1,zero=1";
  request.devices = 4;
  const StrategyEvaluation kept =
      evaluate_strategy(test::shipped_plugins(), model, machine, request);
  REQUIRE(kept.valid());
  // A budget 3 GiB under the kept peak: the per-layer strategy recomputes.
  request.max_memory =
      std::to_string((kept.peak_bytes - (int64_t{3} << 30) + (int64_t{2} << 30)) >> 20) + "MB";
  request.recompute.strategy = "per-layer";
  const StrategyEvaluation chosen =
      evaluate_strategy(test::shipped_plugins(), model, machine, request);
  REQUIRE(chosen.valid());
  CHECK(chosen.fits);
  CHECK(chosen.recompute.chosen);
  CHECK(chosen.recompute.full_layers > 0);
  CHECK(chosen.strategy.recompute == NDS_RECOMPUTE_FULL);
  const StageMemory& first = chosen.stages[0];
  REQUIRE(first.layer_options.size() == 2);  // [0, n-1] full, [n, 15] kept
  CHECK(first.layer_options[0].first == 0);
  CHECK(first.layer_options[0].option == NDS_LAYER_FULL);
  CHECK(first.layer_options[1].last == 15);
  CHECK(first.layer_options[1].option == NDS_LAYER_KEEP);
  CHECK(first.recomputed_layers == first.layer_options[0].last + 1);
  // Recomputing only adds work: never faster than the kept strategy (over the
  // budget), and its forwards run again count in the hardware FLOPs. (Here
  // the step does not grow: stage 1, with the output head, stays the slower.)
  CHECK(chosen.time->step_s >= kept.time->step_s);
  CHECK(chosen.time->hardware_flops_per_step > kept.time->hardware_flops_per_step);
  CHECK(chosen.time->model_flops_per_step == Approx(kept.time->model_flops_per_step));
  // A strategy that states its own recompute contradicts the per-layer choice.
  request.strategy += ",recompute=full";
  CHECK_THROWS_WITH(evaluate_strategy(test::shipped_plugins(), model, machine, request),
                    Catch::Contains("chooses each layer's recompute"));
}
