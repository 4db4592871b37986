// SPDX-License-Identifier: Apache-2.0
// test_trainer_kernels.cpp: the same model and strategy priced as two
// trainers run them (issue 38): Megatron-Core's fused memory-bound kernels
// against PyTorch eager ops (torchtitan without compile), torchtitan's
// per-op checkpointing against Megatron's selective recompute, and
// FlashAttention-2 (PyTorch SDPA's flash backend) against the device's own
// attention curves; each difference derived by hand.
#include <catch2/catch.hpp>

#include "core/compile/compiled_model.hpp"
#include "core/price/time/kernels.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "tests/support/gpt_memory.hpp"

using namespace ndsearch;

namespace {

// 2 Llama-style layers: h 1024, 16 query heads and 4 KV heads of 64, a gated
// (SwiGLU) MLP of 4096, RoPE, sequences of 2048 tokens, bf16.
Model llama_like() {
  Model m = test::gpt({2, 1024, 16, 4096, 32000, 2048, "bf16", "fp32", "fp32", 2});
  m.main.blocks[0].c.ffn = NDS_FFN_SWIGLU;
  m.main.blocks[0].c.kv_heads = 4;
  return m;
}

TimeEstimate priced(const Model& m, const Device& device) {
  // No trainer overheads: kernels at their micro-benchmark times.
  const CompiledModel compiled(m, device, CompileOptions{TrainerOverheads{}, {}, {}});
  const nds_strategy s = test::strategy("dp=1,tp=1,pp=1,mbs=1,mbn=1,zero=0");
  return TimeModel(compiled).estimate(place_layers(s, m, false).candidate(), 1);
}

}  // namespace

TEST_CASE("Eager PyTorch ops move what fused kernels move plus their casts and copies") {
  const Device h100 = test::shipped_device("nvidia-h100-sxm");
  Model fused = llama_like();
  Model eager = llama_like();
  eager.training.elementwise_kernels = NDS_ELEMENTWISE_EAGER;
  const TimeEstimate a = priced(fused, h100), b = priced(eager, h100);
  // Per token and layer, in bf16 elements, eager less fused:
  //   two RMSNorms 2 x 18 h against 4 h:       32 x 1024           = 32,768
  //   SwiGLU 5 per width element against 3:     2 x 4096           =  8,192
  //   RoPE 10 per rotated element against 2:    8 x (1024 + 256)   = 10,240
  //   repeat_kv, K and V read and copied:       2 x (256 + 1024)   =  2,560
  //                                                                   53,760
  // x 2048 tokens x 2 bytes x 2 layers over H100's achieved 3.35e12 x 0.887
  // B/s: 440,401,920 / 2.97145e12 = 148.21 us forward, twice that backward.
  const double forward = 53760.0 * 2048 * 2 * 2 / (3.35e12 * 0.887);
  CHECK(b.parts.forward - a.parts.forward == Approx(forward).epsilon(1e-9));
  CHECK(b.parts.backward - a.parts.backward == Approx(2 * forward).epsilon(1e-9));
  CHECK(forward == Approx(148.21e-6).epsilon(1e-4));
}

TEST_CASE(
    "torchtitan's per-op checkpointing runs wk wo and w3 again where Megatron runs attention") {
  Model titan = llama_like();
  titan.training.recompute_ops = NDS_RECOMPUTE_OP_ALTERNATE_MATMULS;
  const CompiledModel compiled(titan, test::shipped_device("nvidia-h100-sxm"));
  // The matmuls of a layer run wq, wk, wv, wo, w1, w3, w2; every second one
  // is recomputed: wk (h x 256), wo (1024 x h) and w3 (h x 4096), 2 FLOPs a
  // weight per token: 2 x 1024 x (256 + 1024 + 4096) = 11,010,048 a layer.
  REQUIRE(compiled.layers.recomputed_flops.size() == 3);
  CHECK(compiled.layers.recomputed_flops[1][1] == 11010048.0);
  CHECK(compiled.layers.recomputed_flops[2][1] == 2 * 11010048.0);
  // Megatron's core-attention recompute reruns the scores and values only:
  // 4 x 2048 keys x 1024 = 8,388,608 a layer.
  Model megatron = llama_like();
  megatron.training.recompute_ops = NDS_RECOMPUTE_OP_CORE_ATTENTION;
  const CompiledModel m(megatron, test::shipped_device("nvidia-h100-sxm"));
  CHECK(m.layers.recomputed_flops[1][1] == 8388608.0);
}

TEST_CASE("FlashAttention-2 runs at its H100 rate where the device's kernel is faster") {
  const nds_attention_kernel fa2 = NDS_ATTENTION_KERNEL_FA2;
  const Device h100 = test::shipped_device("nvidia-h100-sxm");
  const Kernels best(h100, "bf16", "bf16", 2), flash2(h100, "bf16", "bf16", 2, 1, {}, fa2);
  // H100's curve (FlashAttention-3) at an 8K causal block: 0.692 x 989.4 =
  // 684.66 TFLOP/s forward; FlashAttention-2: 327.9. Every pass and length
  // takes 684.66 / 327.9 = 2.0880 times as long.
  const auto ratio = [&](Pass pass, double s) {
    return flash2.attention(pass, s, s, 128, 128, 32, true) /
           best.attention(pass, s, s, 128, 128, 32, true);
  };
  CHECK(ratio(Pass::forward, 8192) == Approx(0.692 * 989.4 / 327.9).epsilon(1e-9));
  CHECK(ratio(Pass::backward, 2048) == Approx(0.692 * 989.4 / 327.9).epsilon(1e-9));
  // A100's curve is FlashAttention-2's own (0.737 x 312 = 230 TFLOP/s at 8K,
  // below 327.9): unchanged.
  const Device a100 = test::shipped_device("nvidia-a100-80g");
  const Kernels a_best(a100, "bf16", "bf16", 2), a_flash2(a100, "bf16", "bf16", 2, 1, {}, fa2);
  CHECK(a_flash2.attention(Pass::forward, 8192, 8192, 128, 128, 32, true) ==
        a_best.attention(Pass::forward, 8192, 8192, 128, 128, 32, true));
}

TEST_CASE(
    "FSDP2 under a pipeline gathers and reduces once a step where ZeRO-3 does per micro-batch") {
  // Parameters and gradients both bf16, so that a reduce-scatter and an
  // all-gather of a rank's shard move the same bytes in the same time (G).
  // ZeRO-3 layer by layer (Megatron-FSDP, DeepSpeed): per micro-batch a
  // gather before the forward and one before the backward, and a
  // reduce-scatter after the backward: 3 G x 4 micro-batches = 12 G a step.
  // torchtitan's FSDP2 under a pipeline (reshard_after_forward off, gradient
  // sync on the last micro-batch only: torch/distributed/pipelining/stage.py):
  // one gather and one reduce-scatter a step, 2 G. The embedding (rank 0) and
  // the untied head (rank 1) hold as many parameters, so either rank's G is
  // the other's but for the final norm's 1024 on rank 1 (2e-5 of its 45 M):
  // the step takes the rank whose exposed share is the larger, within 1e-4.
  Model megatron = test::gpt({2, 1024, 16, 4096, 32000, 2048, "bf16", "bf16", "fp32", 2});
  Model titan = megatron;
  titan.training.fsdp_holding = NDS_FSDP2_KEEP_UNDER_PP;
  const Device& h100 = test::shipped_device("nvidia-h100-sxm");
  auto dp_seconds = [&](const Model& m, const char* strategy) {
    const CompiledModel compiled(m, h100, CompileOptions{TrainerOverheads{}, {}, {}});
    const nds_strategy s = test::strategy(strategy);
    const TimeEstimate e = TimeModel(compiled).estimate(place_layers(s, m, false).candidate(), 1);
    return e.parts.dp + e.hidden.dp;  // exposed and hidden
  };
  const char* piped = "dp=4,tp=1,pp=2,mbs=1,mbn=4,zero=3";
  CHECK(dp_seconds(megatron, piped) == Approx(6 * dp_seconds(titan, piped)).epsilon(1e-4));
  // Without a pipeline torchtitan reshards every block after its forward:
  // gathered again for the backward, as ZeRO-3: the same 12 G.
  const char* flat = "dp=8,tp=1,pp=1,mbs=1,mbn=4,zero=3";
  CHECK(dp_seconds(megatron, flat) == Approx(dp_seconds(titan, flat)).epsilon(1e-12));
}
