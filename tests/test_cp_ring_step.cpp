// SPDX-License-Identifier: Apache-2.0
// test_cp_ring_step.cpp: one step of the context-parallel ring (issue 38),
// derived by hand: the K and V block the cp-ring plugin passes (docs/cp.md,
// "ring"), the send/recv that moves it over NVLink (collective_seconds), the
// attention of the block in hand (the device's attention curve), and what
// the time model reports exposed and hidden (TimeModel::cp_comm: a step stays
// exposed for what its block's attention, the layer's attention over cp,
// cannot cover).
#include <catch2/catch.hpp>

#include "core/compile/compiled_model.hpp"
#include "core/compile/cp_model.hpp"
#include "core/price/time/collectives.hpp"
#include "core/price/time/kernels.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "tests/support/gpt_memory.hpp"

using namespace ndsearch;

namespace {

// One layer of Llama-3-8B's attention: h 4096, 32 query heads and 8 KV heads
// of 128, a gated (SwiGLU) MLP of 14336, fused (flash) attention, bf16, at
// sequence length `seq`. Overlap is left unstated, so the CP ring's is on
// (a well-tuned Megatron-Core run: trainer_settings.cpp).
Model llama3_8b_layer(int64_t seq) {
  Model m = test::gpt({1, 4096, 32, 14336, 32000, seq, "bf16", "fp32", "fp32", 2});
  m.main.blocks[0].c.ffn = NDS_FFN_SWIGLU;
  m.main.blocks[0].c.kv_heads = 8;
  m.main.flash_attention = 1;
  return m;
}

// The step of `m` on eight H100 SXMs without trainer overheads (kernels at
// their micro-benchmark times): one micro-batch of one sequence over cp = 8,
// tp = 1, the cp-ring model.
TimeEstimate ring_estimate(Model& m) {
  const Device& h100 = test::shipped_device("nvidia-h100-sxm");
  const CpModel ring(test::shipped_plugins(), m, h100, "ring");
  const CompiledModel compiled(m, h100, CompileOptions{TrainerOverheads{}, {}, {}});
  const nds_strategy s = test::strategy("dp=1,tp=1,pp=1,cp=8,mbs=1,mbn=1,zero=0");
  const Placement placement = place_layers(s, m, false);
  return TimeModel(compiled, &ring).estimate(placement.candidate(), 8);
}

// H100's NVLink level (plugins/common/devices/nvidia_h100.cpp, dgx_h100_levels;
// nvidia-h100-gt96 copies it): 450e9 bytes/s per direction per GPU
// (NVLink 4), bus efficiency kNvlinkBusEfficiency 0.81, half-bandwidth size
// kNvlinkHalfBandwidthBytes 12e6; latency kNvlinkLatencyS 3 us
// (plugins/common/devices/nvidia.hpp). A send/recv of S bytes round a ring
// of 8 inside the node crosses one NVSwitch hop at the level's rate:
//   t = 3e-6 + S / (0.81 · S / (S + 12e6) · 450e9) = 3e-6 + (S + 12e6) / 364.5e9.
double nvlink_step_s(double bytes) {
  return 3e-6 + (bytes + 12e6) / (0.81 * 450e9);
}

// The H100 bf16 attention curves (plugins/common/devices/nvidia_kernels.cpp,
// kHopperForward and kHopperBackward: FlashAttention-3, tritonbench PR #1267)
// at 1024 tokens, 0.368 and 0.184 of 989.4 TFLOP/s, and from 8192 on (the
// curve's last point, held beyond it), 0.692 and 0.545.
constexpr double kPeak = 989.4e12;

}  // namespace

TEST_CASE(
    "A ring step at 128K over eight H100s moves a 64 MiB block in 220 us beside 3.2 ms of "
    "attention") {
  const int64_t seq = 131072;
  Model m = llama3_8b_layer(seq);
  const Device& h100 = test::shipped_device("nvidia-h100-sxm");

  // The block (docs/cp.md, "ring"): T = s/cp = 16384 tokens, K and V of
  // 8 KV heads of 128 each, w = 2048 elements a token, 2 bytes:
  //   block = 16384 · 2048 · 2 = 67,108,864 bytes = 64 MiB,
  // forward 7 blocks in 7 steps, backward 14 (each block again and its dK,
  // dV) in the same 7 steps, 2 blocks of double buffer.
  const double block = 16384.0 * 2048 * 2;
  const CpModel ring(test::shipped_plugins(), m, h100, "ring");
  const nds_strategy s = test::strategy("dp=1,tp=1,pp=1,cp=8,mbs=1,mbn=1,zero=0");
  const Placement placement = place_layers(s, m, false);
  const CpCost cost = ring.evaluate(placement.candidate(), 0);
  REQUIRE(cost.refusal.empty());
  REQUIRE(cost.comm_count == 1);
  const nds_cp_comm& step = cost.comms[0];
  CHECK(step.collective == NDS_COLLECTIVE_SEND_RECV);
  CHECK(step.group_size == 8);
  CHECK(step.group_stride == 1);
  CHECK(step.forward_bytes == 7 * block);
  CHECK(step.backward_bytes == 14 * block);
  CHECK(step.forward_steps == 7);
  CHECK(step.backward_steps == 7);
  CHECK(cost.extra_activation_bytes == 2 * block);

  // One step's transfer: a forward step sends one block, a backward step a
  // block and its gradient, 2 blocks:
  //   forward  3e-6 + (67,108,864 + 12e6) / 364.5e9 = 220.03 us
  //   backward 3e-6 + (134,217,728 + 12e6) / 364.5e9 = 404.15 us
  const double forward_step = nvlink_step_s(block), backward_step = nvlink_step_s(2 * block);
  CHECK(collective_seconds(h100, Collective::send_recv, 8, 1, block) ==
        Approx(forward_step).epsilon(1e-12));
  CHECK(collective_seconds(h100, Collective::send_recv, 8, 1, 2 * block) ==
        Approx(backward_step).epsilon(1e-12));
  CHECK(forward_step == Approx(220.03e-6).epsilon(1e-4));
  CHECK(backward_step == Approx(404.15e-6).epsilon(1e-4));

  // One step's attention. Zig-zag: a rank's 16384 queries meet its own
  // causal 16384 x 16384 block and 7 full 16384 x 8192 half blocks of the
  // others, each 2 · 16384 · 8192 · (128 + 128) · 32 heads = 16384² · 8192 =
  // 2.19902e12 FLOPs, run at the curve's 16384 (a causal block of s at s, a
  // full one at 2·min(q, k)): beyond 8192, 0.692 forward. The layer's
  // attention is 8 equal blocks and each step covers attention / cp of it:
  //   2.19902e12 / (989.4e12 · 0.692) = 3.2118 ms forward,
  //   2.5 · 2.19902e12 / (989.4e12 · 0.545) = 10.195 ms backward.
  const Kernels kernels(h100, "bf16", "bf16", 2);
  const double flops = 16384.0 * 16384 * 8192;
  const double forward_attention = flops / (kPeak * 0.692),
               backward_attention = 2.5 * flops / (kPeak * 0.545);
  CHECK(kernels.attention(Pass::forward, 16384, 16384, 128, 128, 32, true) ==
        Approx(forward_attention).epsilon(1e-12));
  CHECK(kernels.attention(Pass::forward, 16384, 8192, 128, 128, 32, false) ==
        Approx(forward_attention).epsilon(1e-12));
  CHECK(kernels.attention(Pass::backward, 16384, 8192, 128, 128, 32, false) ==
        Approx(backward_attention).epsilon(1e-12));
  CHECK(forward_attention == Approx(3.2118e-3).epsilon(1e-4));
  CHECK(backward_attention == Approx(10.195e-3).epsilon(1e-4));

  // Exposed per step: max(0, 220.03 us - 3.2118 ms) = 0 forward and
  // max(0, 404.15 us - 10.195 ms) = 0 backward: at 128K the block's
  // attention outlasts its transfer 14.6 and 25.2 times, and the ring is
  // hidden whole: 7 · (220.03 + 404.15) us = 4.3693 ms a layer.
  const TimeEstimate e = ring_estimate(m);
  CHECK(e.parts.cp == 0.0);
  CHECK(e.hidden.cp == Approx(7 * (forward_step + backward_step)).epsilon(1e-9));
  CHECK(e.hidden.cp == Approx(4.3693e-3).epsilon(1e-4));
}

TEST_CASE("At 8K the ring's forward step outlasts its block's attention and shows the rest") {
  // The same layer and ring at s = 8192: T = 1024 tokens, a 4 MiB block,
  //   forward step  3e-6 + (4,194,304 + 12e6) / 364.5e9 = 47.429 us,
  //   backward step 3e-6 + (8,388,608 + 12e6) / 364.5e9 = 58.936 us.
  // Each block, 1024² · 8192 = 8.58993e9 FLOPs, runs at the curve's 1024:
  //   forward  8.58993e9 / (989.4e12 · 0.368) = 23.592 us,
  //   backward 2.5 · 8.58993e9 / (989.4e12 · 0.184) = 117.96 us.
  // Forward: 47.429 - 23.592 = 23.837 us of each of 7 steps exposed,
  // 166.86 us; backward hidden (117.96 us of attention beside 58.936).
  // Hidden: 7 · 23.592 + 7 · 58.936 = 577.70 us.
  Model m = llama3_8b_layer(8192);
  const double block = 1024.0 * 2048 * 2;
  const double forward_step = nvlink_step_s(block), backward_step = nvlink_step_s(2 * block);
  const double flops = 1024.0 * 1024 * 8192;
  const double forward_attention = flops / (kPeak * 0.368);
  const TimeEstimate e = ring_estimate(m);
  CHECK(e.parts.cp == Approx(7 * (forward_step - forward_attention)).epsilon(1e-9));
  CHECK(e.hidden.cp == Approx(7 * (forward_attention + backward_step)).epsilon(1e-9));
  CHECK(e.parts.cp == Approx(166.86e-6).epsilon(1e-4));
  CHECK(e.hidden.cp == Approx(577.70e-6).epsilon(1e-4));
}
