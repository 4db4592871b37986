// SPDX-License-Identifier: Apache-2.0
// test_compiled_model.cpp: the model compiled once per run (core/compile/):
// the facts of its layers, found once and derived here by hand, and a copy
// of the model of its own, so that the time model reads nothing of the
// caller's model.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "core/compile/compiled_model.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "tests/support/gpt_memory.hpp"

using namespace ndsearch;

namespace {

// 5 GPT layers (h 1024, 16 heads of 64, GeLU MLP of 4096, LayerNorm,
// biases) over a 2048-token sequence, in two blocks: the first 2 layers
// attend to a window of 512 keys, the last 3 to the whole sequence.
Model two_blocks() {
  Model m = test::gpt({5, 1024, 16, 4096, 32000, 2048, "bf16", "fp32", "fp32", 2});
  m.main.blocks.push_back(m.main.blocks[0]);
  m.main.blocks[0].c.layers = 2;
  m.main.blocks[0].c.attention_window = 512;
  m.main.blocks[1].c.layers = 3;
  return m;
}

}  // namespace

TEST_CASE("A compiled model indexes each decoder layer by its block and sums its FLOPs once") {
  const Model m = two_blocks();
  const CompiledModel c(m, test::shipped_device("nvidia-h100-sxm"));
  CHECK(c.layers.block_index == std::vector<uint32_t>{0, 0, 1, 1, 1});
  CHECK(c.layers.run_end == std::vector<uint32_t>{2, 2, 5, 5, 5});  // one past the block's last
  CHECK(c.layers.mtp_blocks.empty());
  // The layers' blocks are the compiled model's own copy, not the caller's.
  CHECK(c.layers.block[0] == &c.model.main.blocks[0].c);
  CHECK(c.layers.block[4] == &c.model.main.blocks[1].c);
  CHECK(c.layers.block[0] != &m.main.blocks[0].c);
  // Keys per query times the attention's width (16 x 64 = 1024), DESIGN §8.7:
  // 2 layers x 512 (the window) + 3 x 2048 (the sequence), x 1024 = 7,340,032.
  CHECK(c.layers.attention_keys == 7340032.0);
  // Under the causal mask: a band of w = 512 over s = 2048 keeps
  // w - w²/2s = 512 - 64 = 448 keys per query on average, the full mask
  // s/2 = 1024: (2 x 448 + 3 x 1024) x 1024 = 4,063,232.
  CHECK(c.layers.attention_keys_causal == 4063232.0);
  // Active parameters per layer: Q, K, V and output projections 4h² with
  // their biases 4h, two LayerNorms 2 x 2h, the MLP 2hf with biases f + h:
  // 4,194,304 + 4,096 + 4,096 + 8,388,608 + 4,096 + 1,024 = 12,596,224; x 5.
  CHECK(c.layers.active_params == 5 * 12596224.0);
  // Full recompute runs a layer's forward again per token: 2 FLOPs per
  // parameter and the attention core 4 x keys x 1024, summed over the layers:
  // 2 x 62,981,120 + 4 x 7,340,032 = 125,962,240 + 29,360,128 = 155,322,368.
  REQUIRE(c.layers.recomputed_flops.size() == 6);
  CHECK(c.layers.recomputed_flops[0][0] == 0);
  CHECK(c.layers.recomputed_flops[5][0] == 155322368.0);
  // The first layer alone: 2 x 12,596,224 + 4 x 512 x 1024 = 27,289,600.
  CHECK(c.layers.recomputed_flops[1][0] == 27289600.0);
}

TEST_CASE("The time model prices from the compiled copy whatever the caller's model becomes") {
  Model m = two_blocks();
  const CompiledModel compiled(m, test::shipped_device("nvidia-h100-sxm"));
  const TimeModel time(compiled);
  const nds_strategy s = test::strategy("dp=2,tp=2,pp=2,mbs=1,mbn=4");
  const Placement p = place_layers(s, m, false);
  const TimeEstimate before = time.estimate(p.candidate(), 8);
  REQUIRE(before.step_s > 0);
  // The caller's model changes after compiling (a wider model, a longer
  // sequence): the estimate from the compiled model does not.
  for (ModelBlock& b : m.main.blocks) b.c.hidden_size *= 2;
  m.training.seq_len *= 2;
  const TimeEstimate after = time.estimate(p.candidate(), 8);
  CHECK(after.step_s == before.step_s);
  CHECK(after.model_flops_per_step == before.model_flops_per_step);
  // ... and a model compiled from the changed one prices more.
  const CompiledModel wider(m, test::shipped_device("nvidia-h100-sxm"));
  CHECK(TimeModel(wider).estimate(p.candidate(), 8).step_s > before.step_s);
}
