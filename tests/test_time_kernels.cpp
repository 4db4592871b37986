// SPDX-License-Identifier: Apache-2.0
// test_time_kernels.cpp: the pieces of the time model against hand
// derivations: GEMMs by shape (roofline, thin outputs, one launch for a
// batched GEMM), attention kernels (causal half, backward 2.5x the FLOPs),
// collectives (NICs pooled across nodes, hierarchical all-to-all, NVLS), the
// overlaps computed from what hides them, the precision recipe, and what the
// trainer settings assume.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/compile/trainer_settings.hpp"
#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/price/time/collectives.hpp"
#include "core/price/time/kernels.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/support/overlap_fields.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;
using Value = ModelBuilder::Value;

namespace {

const Device& h100() {
  return test::shipped_device("nvidia-h100-sxm");
}
const Device& a100() {
  return test::shipped_device("nvidia-a100-80g");
}

using test::Fields;

// A Llama-like decoder (head dim 128, GQA 8 KV heads, SwiGLU 3.5h unless
// `ffn` says, RMSNorm, RoPE, no biases, no dropout), `layers` of hidden `h`,
// vocab `vocab`, with `extra` training settings (overlaps, precision) on top
// of bf16 and fp32 gradients.
Model llama(int64_t layers, int64_t h, int64_t seq, int64_t batch, const Fields& extra,
            int64_t ffn = 0, int64_t vocab = 32000, int64_t window = 0) {
  Model m;
  m.file = "test";
  m.framework = "megatron-args";
  ModelBuilder b(m, "test", false);
  auto set = [&](const char* key, Value v) { REQUIRE(b.set(key, v, "t") == nullptr); };
  REQUIRE(b.begin_block("decoder", layers, "t") == nullptr);
  set("hidden_size", h);
  set("heads", h / 128);
  set("kv_heads", int64_t{8});
  set("ffn", std::string("swiglu"));
  set("ffn_hidden_size", ffn > 0 ? ffn : h * 7 / 2);
  set("norm", std::string("rmsnorm"));
  if (window > 0) set("attention_window", window);
  REQUIRE(b.end_block() == nullptr);
  set("vocab_size", vocab);
  set("position_embedding", std::string("rope"));
  set("flash_attention", int64_t{1});
  set("seq_len", seq);
  set("global_batch", batch);
  set("params_dtype", std::string("bf16"));
  set("compute_dtype", std::string("bf16"));
  set("grads_dtype", std::string("fp32"));
  for (const auto& [key, value] : extra) set(key, value);
  finalize_model(m);
  return m;
}

const Fields kAllOverlap = test::overlap_fields(1);
const Fields kNoOverlap = test::overlap_fields(0);

// The fraction of its line rate a collective of `bytes` reaches at `level`:
// the level's bus efficiency times S / (S + its half-bandwidth size).
double reach(const TopologyLevel& level, double bytes) {
  return level.bus_efficiency * bytes / (bytes + level.half_bandwidth_bytes);
}

TimeEstimate estimate(const Model& m, const char* text, uint64_t devices, const Device& device,
                      TrainerOverheads overheads = {}) {
  const nds_strategy s =
      resolve_strategy(parse_strategy(text), m, devices, m.training.global_batch);
  const Placement p = place_layers(s, m, false);
  const CompiledModel compiled(m, device, {overheads, {}, {}});
  return TimeModel(compiled).estimate(p.candidate(), devices);
}

}  // namespace

TEST_CASE("A GEMM is the slower of its FLOPs at the curve's efficiency and its HBM traffic") {
  const Device& d = h100();
  const Kernels k(d, "bf16", "bf16", 2);
  const GemmRate& r = k.linear();
  // 8192^3 in bf16: 1.0995e12 FLOPs, between the curve's points at 1e12 and
  // 1e13 (e(F) = 0.8·F / (F + 0.8·peak·5us), sampled per decade and
  // interpolated linearly).
  const double flops = 2.0 * 8192 * 8192 * 8192;
  auto sampled = [](double f) { return 0.80 * f / (f + 0.80 * 989.4e12 * 5e-6); };
  const double e = sampled(1e12) + (flops - 1e12) / 9e12 * (sampled(1e13) - sampled(1e12));
  CHECK(k.gemm(r, 8192, 8192, 8192) == Approx(flops / (989.4e12 * e)).epsilon(2e-3));
  // 8192 x 8192 x 64: the 64-deep product is memory-bound at the STREAM
  // triad's 0.887 x 3.35 TB/s (inputs and output in bf16).
  const double bytes = (8192.0 * 64 + 64 * 8192 + 8192.0 * 8192) * 2;
  CHECK(k.gemm(r, 8192, 8192, 64) == Approx(bytes / (0.887 * 3.35e12)));
  // A 128-wide output loses tile fill: the thin-GEMM multiplier 1 - 0.127·1.5.
  const double thin = k.gemm(r, 65536, 128, 8192), square = k.gemm(r, 65536, 8192, 128);
  CHECK(thin > square * 0 + 2.0 * 65536 * 128 * 8192 / 989.4e12);  // slower than the peak
  CHECK(k.gemm(r, 128, 65536, 8192) == Approx(thin));              // min(m, n) is what counts
}

TEST_CASE("A batched GEMM is one launch: efficiency over all its FLOPs") {
  const Kernels k(a100(), "fp16", "fp16", 2);
  const GemmRate& r = k.high();
  // 384 products of 2048 x 2048 x 96 (a 1.7B GPT's scores at micro-batch
  // 16): one bmm launch against 384 GEMMs of 5 us launch and tail each.
  const double one = k.batched_gemm(r, 2048, 2048, 96, 384), many = k.gemm(r, 2048, 2048, 96, 384);
  CHECK(one < many);
  CHECK(many - one > 384 * 3e-6);
}

TEST_CASE(
    "Attention: causal blocks do half the work, the backward 2.5x the FLOPs at its own "
    "efficiency") {
  const Kernels k(h100(), "bf16", "bf16", 2);
  // 8192 tokens, 64 heads x 1 sequence, head dim 128 (H100 FlashAttention-3
  // at 8192: 0.692 forward, 0.545 backward of 989.4 TFLOP/s).
  const double f = 2.0 * 8192 * 8192 * 256 * 64;  // 4·s²·d·heads
  CHECK(k.attention(Pass::forward, 8192, 8192, 128, 128, 64, true) ==
        Approx(f / 2 / (989.4e12 * 0.692)).epsilon(2e-3));
  CHECK(k.attention(Pass::backward, 8192, 8192, 128, 128, 64, true) ==
        Approx(2.5 * f / 2 / (989.4e12 * 0.545)).epsilon(2e-3));
  // A full (unmasked) 4096 x 4096 block runs at the causal curve's 8192.
  const double block = 2.0 * 4096 * 4096 * 256 * 64;
  CHECK(k.attention(Pass::forward, 4096, 4096, 128, 128, 64, false) ==
        Approx(block / (989.4e12 * 0.692)).epsilon(2e-3));
  // Short blocks are less efficient per FLOP (the curve falls to 0.368 at 1024).
  const double short_block =
      k.attention(Pass::forward, 1024, 1024, 128, 128, 64, true) / (1024.0 * 1024);
  const double long_block =
      k.attention(Pass::forward, 8192, 8192, 128, 128, 64, true) / (8192.0 * 8192);
  CHECK(short_block > 1.8 * long_block);
}

TEST_CASE("Attention at head dim 64 runs at 0.67 of head dim 128's efficiency, linearly between") {
  const Kernels k(h100(), "bf16", "bf16", 2);
  // The same FLOPs (8192 tokens causal, heads x head dim = 8192) at head
  // dim 128 (64 heads), 64 (128 heads) and 96 (85.33 heads): FA4's
  // measured d64/d128 ratio 0.67 (flash-attention PR #2605), and at 96
  // halfway, 0.67 + 0.5 x 0.33 = 0.835. Head dim 256 runs as 128.
  const double d128 = k.attention(Pass::forward, 8192, 8192, 128, 128, 64, true);
  CHECK(k.attention(Pass::forward, 8192, 8192, 64, 64, 128, true) == Approx(d128 / 0.67));
  CHECK(k.attention(Pass::backward, 8192, 8192, 64, 64, 128, true) ==
        Approx(k.attention(Pass::backward, 8192, 8192, 128, 128, 64, true) / 0.67));
  CHECK(k.attention(Pass::forward, 8192, 8192, 96, 96, 64 * 128 / 96.0, true) ==
        Approx(d128 / 0.835));
  CHECK(k.attention(Pass::forward, 8192, 8192, 256, 256, 32, true) == Approx(d128));
}

TEST_CASE("A ring across nodes pools the NICs of its members on each node") {
  const Device& d = h100();
  const TopologyLevel &nvlink = d.levels[0], &nic = d.levels[1];
  const double bytes = 1e9, latency = nic.latency_s;
  // 16 ranks at stride 1: two nodes of 8, eight NICs each (one ring per
  // NIC): min(8 x 0.92 x 50, 0.81 x 450) GB/s (each at its size's reach),
  // 2·log2(16) = 8 tree steps.
  const double pooled = std::min(8 * reach(nic, bytes) * 50e9, reach(nvlink, bytes) * 450e9);
  CHECK(collective_seconds(d, Collective::all_reduce, 16, 1, bytes) ==
        Approx(2 * 8 * latency + 2 * 15.0 / 16 * bytes / pooled));
  // 16 ranks at stride 8: one per node, one NIC; a reduce-scatter is a ring
  // (NCCL's tree is for all-reduce): 15 latency-bound steps.
  CHECK(collective_seconds(d, Collective::reduce_scatter, 16, 8, bytes) ==
        Approx(15 * latency + 15.0 / 16 * bytes / (reach(nic, bytes) * 50e9)));
  // Inside a node NVLS raises the all-reduce's bus bandwidth 1.29x over the ring.
  const double inside = collective_seconds(d, Collective::all_reduce, 8, 1, bytes);
  CHECK(inside == Approx(2 * 6 * nvlink.latency_s +
                         2 * 7.0 / 8 * bytes / (reach(nvlink, bytes) * 450e9 * 1.29)));
  // Mid-size messages stay below the plateau: 16 MB inside the node reaches
  // 16 / (16 + 12) of it (Azure's NVLS table by size, microbenchmarks.md §3a).
  CHECK(reach(nvlink, 16e6) == Approx(nvlink.bus_efficiency * 16.0 / 28));
}

TEST_CASE(
    "All-to-all across nodes sends its node-local share over NVLink and the rest over its own "
    "NIC") {
  const Device& d = h100();
  const TopologyLevel &nvlink = d.levels[0], &nic = d.levels[1];
  const double bytes = 1e9;
  // 32 ranks, 8 per node: 7/32 stays on the node, 24/32 crosses, both at once.
  const double local = 7.0 / 32 * bytes / (reach(nvlink, bytes) * 450e9);
  const double remote = 24.0 / 32 * bytes / (reach(nic, bytes) * 50e9);
  CHECK(collective_seconds(d, Collective::all_to_all, 32, 1, bytes) ==
        Approx(nic.latency_s + std::max(local, remote)));
  // Inside a node: NVLink only.
  CHECK(collective_seconds(d, Collective::all_to_all, 8, 1, bytes) ==
        Approx(nvlink.latency_s + 7.0 / 8 * bytes / (reach(nvlink, bytes) * 450e9)));
}

TEST_CASE("Overlap hides only what compute can cover, and the totals stay") {
  // 8 layers of hidden 8192 on 64 H100: tp 8 in the node, dp 8 across nodes.
  const Model on = llama(8, 8192, 4096, 64, kAllOverlap),
              off = llama(8, 8192, 4096, 64, kNoOverlap);
  const char* s = "tp=8,pp=1,dp=8,mbs=1,zero=1,sp=1";
  const TimeEstimate a = estimate(on, s, 64, h100()), b = estimate(off, s, 64, h100());
  // Nothing hidden without overlap.
  for (const auto& [name, part] : kHiddenParts) CHECK(b.hidden.*part == 0);
  // With it: exposed + hidden is the whole collective, and TP keeps at least
  // the quarter of the forward's and half of the backward's that chunking
  // cannot hide (DoMiNO's measured 75 % / 50 %). The whole: per layer and
  // pass a pair of C, and the backward's second gather of the input (async:
  // C / 2 more), 2.5 C against the 2 C a backward with nothing async moves.
  CHECK(a.parts.tp + a.hidden.tp == Approx(1.25 * b.parts.tp));
  CHECK(a.parts.tp >= 0.25 * b.parts.tp / 2);
  CHECK(a.hidden.tp > 0);
  CHECK(a.parts.dp + a.hidden.dp == Approx(b.parts.dp));
  CHECK(a.hidden.dp > 0);
  CHECK(a.step_s < b.step_s);
  // A TP group across nodes (tp 16 on two nodes) gets no userbuffer overlap:
  // only the backward's async part hides (1 of its 1.5), as without TP
  // overlap.
  const char* wide_strategy = "tp=16,pp=1,dp=4,mbs=1,zero=1,sp=1";
  Fields no_ub = kAllOverlap;
  no_ub.emplace_back("overlap.tp_comm", int64_t{0});
  const TimeEstimate wide = estimate(on, wide_strategy, 64, h100()),
                     wide_no_ub =
                         estimate(llama(8, 8192, 4096, 64, no_ub), wide_strategy, 64, h100());
  CHECK(wide.parts.tp > 0);
  CHECK(wide.hidden.tp > 0);
  CHECK(wide.parts.tp == Approx(wide_no_ub.parts.tp));
  CHECK(wide.hidden.tp == Approx(wide_no_ub.hidden.tp));
}

TEST_CASE(
    "The backward's async TP exchange hides behind its GEMMs, the output gradient's gather "
    "waits") {
  // 8 layers of hidden 8192 on 64 H100, tp 8: GEMMs far longer than the
  // exchanges, so whatever is async hides whole. Per layer and pass a pair
  // of all-gather + reduce-scatter (SP) or an all-reduce, C.
  Fields async = kNoOverlap;
  async.emplace_back("overlap.tp_async", int64_t{1});
  const Model sync_model = llama(8, 8192, 4096, 64, kNoOverlap),
              async_model = llama(8, 8192, 4096, 64, async);
  for (const char* s : {"tp=8,pp=1,dp=8,mbs=1,zero=1,sp=1", "tp=8,pp=1,dp=8,mbs=1,zero=1,sp=0"}) {
    INFO(s);
    const TimeEstimate sync = estimate(sync_model, s, 64, h100()),
                       a = estimate(async_model, s, 64, h100());
    // Nothing async: C forward, C backward, all exposed.
    CHECK(sync.hidden.tp == 0);
    const double c2 = sync.parts.tp;  // 2 C a layer, over the step
    if (std::string(s).find("sp=1") != std::string::npos) {
      // SP: the backward gathers the column-parallel input again and
      // reduce-scatters its gradient async (C hidden); the row-parallel
      // output gradient's gather waits (C / 2): 1.5 C exposed, C hidden.
      CHECK(a.parts.tp == Approx(0.75 * c2));
      CHECK(a.hidden.tp == Approx(0.5 * c2));
    } else {
      // No SP: the forward's all-reduce waits, the backward's runs under the
      // weight-gradient GEMM.
      CHECK(a.parts.tp == Approx(0.5 * c2));
      CHECK(a.hidden.tp == Approx(0.5 * c2));
    }
  }
  // PyTorch DTensor TP keeps the gathered input: nothing is gathered again,
  // C / 2 waits and C / 2 hides.
  Fields kept = async;
  kept.emplace_back("tp_keeps_gathered_inputs", int64_t{1});
  const char* sp = "tp=8,pp=1,dp=8,mbs=1,zero=1,sp=1";
  const TimeEstimate sync = estimate(sync_model, sp, 64, h100()),
                     k = estimate(llama(8, 8192, 4096, 64, kept), sp, 64, h100());
  CHECK(k.parts.tp == Approx(0.75 * sync.parts.tp));
  CHECK(k.hidden.tp == Approx(0.25 * sync.parts.tp));
}

TEST_CASE("The backward's async TP exchange hides only under the column-parallel linears' GEMMs") {
  // A small layer at tp 8 on one H100 node (hidden 1024, 8 heads and 8 KV
  // heads of 128, SwiGLU 3584, 1024 tokens a micro-batch, 8 micro-batches):
  // its exchange outlasts the GEMMs it can hide under. Those are the
  // column-parallel linears' input- and weight-gradient GEMMs (QKV 1024 ->
  // 384 and the gated up projection 1024 -> 896 on each rank, as
  // TimeModel::linear prices them); the row-parallel ones (128 -> 1024 and
  // 448 -> 1024) wait for their own output gradient's gather.
  Fields async = kNoOverlap;
  async.emplace_back("overlap.tp_async", int64_t{1});
  const char* s = "tp=8,pp=1,dp=1,mbs=1,zero=1,sp=1";
  const TimeEstimate sync = estimate(llama(8, 1024, 1024, 8, kNoOverlap), s, 8, h100()),
                     a = estimate(llama(8, 1024, 1024, 8, async), s, 8, h100());
  const Kernels k(h100(), "bf16", "bf16", 2);
  const GemmRate& r = k.linear();
  auto backward = [&](double in, double out) {
    return k.gemm(r, 1024, in, out) + k.gemm(r, in, out, 1024);
  };
  const double column = backward(1024, 384) + backward(1024, 896);
  const double per_pass = sync.parts.tp / (2 * 8 * 8);  // C: a layer's pair, a micro-batch
  REQUIRE(per_pass > column);                           // the window binds
  CHECK(a.hidden.tp == Approx(8 * 8 * column).epsilon(1e-9));
  CHECK(a.parts.tp ==
        Approx(8 * 8 * (per_pass + 0.5 * per_pass + per_pass - column)).epsilon(1e-9));
}

TEST_CASE(
    "A config that states no overlap is priced as a well-tuned Megatron-Core run, and says so") {
  const Model none = llama(8, 4096, 4096, 64, {});
  const TrainerSettings t = trainer_settings(none, h100());
  CHECK(t.overlap_assumed);
  CHECK(t.overlap ==
        (NDS_OVERLAP_TP_COMM | NDS_OVERLAP_GRAD_REDUCE | NDS_OVERLAP_PARAM_GATHER |
         NDS_OVERLAP_MOE_A2A | NDS_OVERLAP_P2P | NDS_OVERLAP_CP | NDS_OVERLAP_TP_ASYNC));
  CHECK_THAT(t.assumptions.front(), Catch::Contains("assumed a well-tuned Megatron-Core run"));
  const TrainerSettings stated = trainer_settings(llama(8, 4096, 4096, 64, kNoOverlap), h100());
  CHECK_FALSE(stated.overlap_assumed);
  CHECK(stated.overlap == 0);
  CHECK_THAT(stated.assumptions.front(), Catch::Contains("as the config states"));
  // The shipped fit of the device and trainer, named.
  CHECK_THAT(t.overheads_source, Catch::Contains("fitted for megatron on nvidia-h100-sxm"));
  // H200 has no fit of its own: H100's, and the output says so.
  CHECK_THAT(trainer_settings(none, test::shipped_device("nvidia-h200")).overheads_source,
             Catch::Contains("no fit of this device and trainer of its own"));
}

TEST_CASE("An fp8 recipe speeds the linear GEMMs only and pays for its casts") {
  const Fields fp8 = {{"compute_dtype", std::string("fp8")},
                      {"fp8_recipe", std::string("delayed")}};
  const Model bf16_model = llama(8, 8192, 4096, 64, kNoOverlap);
  Fields with_fp8 = kNoOverlap;
  with_fp8.insert(with_fp8.end(), fp8.begin(), fp8.end());
  const Model fp8_model = llama(8, 8192, 4096, 64, with_fp8);
  REQUIRE(fp8_model.training.compute_dtype == NDS_DTYPE_FP8);
  REQUIRE(fp8_model.training.activation_dtype ==
          NDS_DTYPE_BF16);  // activations and collectives stay bf16
  const char* s = "tp=8,pp=1,dp=8,mbs=1,zero=1,sp=1";
  const TimeEstimate a = estimate(bf16_model, s, 64, h100()),
                     b = estimate(fp8_model, s, 64, h100());
  // Faster, but far from 2x: attention, the head and the casts stay, and
  // H100's fp8 GEMMs reach 0.709 of their 2x peak where bf16 reaches 0.80.
  CHECK(b.parts.forward < 0.8 * a.parts.forward);
  CHECK(b.parts.forward > 0.5 * a.parts.forward);
  // The TP collectives carry bf16 activations either way.
  CHECK(b.parts.tp == Approx(a.parts.tp));
  // MFU counts against the fp8 peak (DESIGN §8.7: the compute dtype's).
  CHECK(b.mfu == Approx(b.model_flops_per_step / (b.step_s * 64 * 1978.9e12)));
  // Current scaling reads each input once more for its amax.
  Fields current = kNoOverlap;
  current.insert(current.end(),
                 {{"compute_dtype", std::string("fp8")}, {"fp8_recipe", std::string("current")}});
  CHECK(estimate(llama(8, 8192, 4096, 64, current), s, 64, h100()).parts.forward > b.parts.forward);
}

TEST_CASE("The trainer's fitted overheads add per layer, per step and to every kernel") {
  const Model m = llama(8, 4096, 4096, 64, kNoOverlap);
  const char* s = "tp=1,pp=1,dp=8,mbs=1";  // mbn = 64 / 8 = 8, 8 layers
  const TimeEstimate base = estimate(m, s, 8, h100());
  const TimeEstimate layer = estimate(m, s, 8, h100(), {1e-3, 0, 0});
  CHECK(layer.parts.overhead == Approx(8 * 8 * 1e-3));
  const TimeEstimate step = estimate(m, s, 8, h100(), {0, 0.05, 0});
  CHECK(step.step_s == Approx(base.step_s + 0.05));
  const TimeEstimate slow = estimate(m, s, 8, h100(), {0, 0, 0.25});
  CHECK(slow.parts.forward == Approx(1.25 * base.parts.forward));
  CHECK(slow.parts.backward == Approx(1.25 * base.parts.backward));
}

TEST_CASE("The loss moves the bytes a logit its trainer's cross entropy moves") {
  // 2 layers of 4096, vocab 32000, one device, 2 sequences of 4096 tokens:
  // 2 micro-batches of 4096 x 32000 logits. Unstated, Megatron-Core's fused
  // cross entropy moves 22 bytes a logit forward and 6 backward; Megatron-LM's
  // unfused one 38 and 14: 16 and 8 more bytes for each of 2 x 4096 x 32000
  // logits, at the device's achieved HBM bandwidth.
  const Model fused = llama(2, 4096, 4096, 2, kNoOverlap);
  Fields stated = kNoOverlap;
  stated.emplace_back("loss_forward_bytes_per_logit", 38.0);
  stated.emplace_back("loss_backward_bytes_per_logit", 14.0);
  const Model unfused = llama(2, 4096, 4096, 2, stated);
  const char* s = "tp=1,pp=1,mbs=1,zero=1";
  const TimeEstimate f = estimate(fused, s, 1, h100()), u = estimate(unfused, s, 1, h100());
  const Kernels k(h100(), "bf16", "bf16", 2);
  const double logits = 2.0 * 4096 * 32000;
  CHECK(u.parts.forward - f.parts.forward == Approx(2 * k.memory(4096.0 * 32000 * 16)));
  CHECK(u.parts.backward - f.parts.backward == Approx(2 * k.memory(4096.0 * 32000 * 8)));
  // Memory-bound: 16 bytes of 8.4e9 bytes moved more at about 3 TB/s.
  CHECK(u.parts.forward - f.parts.forward ==
        Approx(logits * 16 / (3.35e12 * h100().memory_bandwidth_efficiency)).epsilon(0.05));
}

TEST_CASE("Long context: 128K with CP 16 is less efficient than 8K, as Meta measured for Llama 3") {
  // Llama 3 405B's shape (126 layers of 16384, 128 heads, 8 KV heads, SwiGLU
  // 53248) on 16384 H100 (Dubey et al. 2024, Table 4: 8K at TP 8, PP 16,
  // 41 % MFU; 128K at TP 8, CP 16, PP 16, 38 %), both counting causal
  // attention as the kernels run it (mfu_causal). The CP ring's short blocks
  // and exchanges cost what 8K does not pay.
  auto model = [](int64_t seq, int64_t batch) {
    return llama(126, 16384, seq, batch, {}, 53248, 128256);
  };
  const Model short_context = model(8192, 2048), long_context = model(131072, 128);
  const nds_strategy s8 = resolve_strategy(parse_strategy("tp=8,pp=16,cp=1,mbs=1,vpp=4,zero=1"),
                                           short_context, 16384, 2048);
  const Placement p8 = place_layers(s8, short_context, false);
  const CompiledModel short_compiled(short_context, h100());
  const TimeEstimate e8 = TimeModel(short_compiled).estimate(p8.candidate(), 16384);
  Model long_model = long_context;
  CpModel ring(test::shipped_plugins(), long_model, h100(), "ring");
  const nds_strategy s128 = resolve_strategy(parse_strategy("tp=8,pp=16,cp=16,mbs=1,vpp=4,zero=1"),
                                             long_model, 16384, 128);
  const Placement p128 = place_layers(s128, long_model, false);
  const CompiledModel long_compiled(long_model, h100());
  const TimeEstimate e128 = TimeModel(long_compiled, &ring).estimate(p128.candidate(), 16384);
  INFO("8K " << e8.mfu_causal << ", 128K " << e128.mfu_causal);
  CHECK(e128.mfu_causal < e8.mfu_causal);
  // With attention counted over the full s² (DESIGN §8.7) 128K would look
  // better: half of its FLOPs are the attention the kernel skips.
  CHECK(e128.mfu > e128.mfu_causal * 1.3);
}

TEST_CASE(
    "A sliding window prices the band of keys its kernel computes, and MFU counts that band") {
  // 2 layers of 4096 (32 heads of 128) at 32K, windows of 4096 keys, one
  // device, 2 sequences of one micro-batch each: only the attention core
  // differs. A windowed layer's scores: a causal 4096 x 4096 block (the
  // first 4096 queries) and a full (32768 - 4096) x 4096 block, in all
  // 32768·4096 - 4096²/2 = 125.8 M scores per head against 32768²/2 =
  // 536.9 M with every key.
  const int64_t seq = 32768, window = 4096;
  const Model full = llama(2, 4096, seq, 2, kNoOverlap);
  const Model banded = llama(2, 4096, seq, 2, kNoOverlap, 0, 32000, window);
  const char* s = "tp=1,pp=1,mbs=1,zero=1";
  const TimeEstimate e_full = estimate(full, s, 1, h100()), e_band = estimate(banded, s, 1, h100());
  // Per layer and micro-batch, 32 heads of d_qk + d_v = 256, at H100's
  // FlashAttention-3 curve (989.4 TFLOP/s; forward 0.674 at 4096 and 0.692
  // from 8192, backward 0.449 and 0.545; a full block of 4096 keys runs at
  // the causal curve's 8192; the backward 2.5x the FLOPs):
  //   causal 32768²:  2·32768²·256·32/2 = 8.796e12 FLOPs;
  //   band: a causal 4096² block, 2·4096²·256·32/2 = 1.374e11, and a full
  //   28672 x 4096 block, 2·28672·4096·256·32 = 1.924e12.
  const double peak = 989.4e12, per_head = 2.0 * 256 * 32;
  const double causal = per_head * 32768.0 * 32768 / 2, small = per_head * 4096.0 * 4096 / 2,
               rest = per_head * 28672.0 * 4096;
  const double forward = causal / (peak * 0.692) - small / (peak * 0.674) - rest / (peak * 0.692);
  const double backward =
      2.5 * (causal / (peak * 0.545) - small / (peak * 0.449) - rest / (peak * 0.545));
  // 2 layers x 2 micro-batches: 39.3 ms less forward, 124.3 ms less backward.
  CHECK(e_full.parts.forward - e_band.parts.forward == Approx(4 * forward).epsilon(1e-3));
  CHECK(e_full.parts.backward - e_band.parts.backward == Approx(4 * backward).epsilon(1e-3));
  CHECK(4 * forward == Approx(0.03932).epsilon(2e-3));
  // Model FLOPs (DESIGN §8.7) count 12·keys·h_attn per token and layer:
  // seq keys, or the window's. Over 2 x 32768 tokens and 2 layers the
  // difference is 2·32768 · 2 · 12 · (32768 - 4096) · 4096 = 1.85e17.
  const double tokens = 2.0 * seq;
  CHECK(e_full.model_flops_per_step - e_band.model_flops_per_step ==
        Approx(tokens * 2 * 12 * (seq - window) * 4096.0));
  // Counted causally: half of every key, or the band's mean keys per query,
  // 4096 - 4096²/65536 = 3840.
  CHECK(e_full.model_flops_causal_per_step - e_band.model_flops_causal_per_step ==
        Approx(tokens * 2 * 12 * (seq / 2.0 - 3840) * 4096.0));
}

TEST_CASE("MFU falls with fewer micro-batches per replica at fixed model parallelism") {
  // 32 layers of 8192 on 256 H100 at tp 8, pp 4: dp 8; global batch 256,
  // 128, 64, 32 gives 32, 16, 8, 4 micro-batches: the bubble (p - 1)/(v·m)
  // and the per-step costs weigh more.
  double previous = 1;
  for (int64_t batch : {256, 128, 64, 32}) {
    const Model m = llama(32, 8192, 4096, batch, {});
    const TimeEstimate e = estimate(m, "tp=8,pp=4,mbs=1,vpp=2,zero=1", 256, h100());
    INFO(batch << ": " << e.mfu);
    CHECK(e.mfu < previous);
    previous = e.mfu;
  }
}

namespace {

// Each strategy priced twice in turn, by `time` with `reuse` and without any:
// the same estimate, bit for bit.
void check_reuse(const TimeModel& time, TimeModel::LayerReuse& reuse, const Model& m,
                 const std::vector<const char*>& strategies) {
  for (int round = 0; round < 2; ++round) {
    for (const char* text : strategies) {
      INFO(text << ", round " << round);
      const nds_strategy s = resolve_strategy(parse_strategy(text), m, 64, 64);
      const Placement p = place_layers(s, m, false);
      const TimeEstimate afresh = time.estimate(p.candidate(), 64);
      const TimeEstimate reused = time.estimate(p.candidate(), 64, nullptr, &reuse);
      CHECK(reused.step_s == afresh.step_s);
      for (const auto& [name, part] : kTimeParts) {
        INFO(name);
        CHECK(reused.parts.*part == afresh.parts.*part);
      }
      CHECK(reused.hidden.cp == afresh.hidden.cp);
      CHECK(reused.hidden.ep == afresh.hidden.ep);
      CHECK(reused.hardware_flops_per_step == afresh.hardware_flops_per_step);
    }
  }
}

}  // namespace

TEST_CASE("Layer prices reused across candidates give the estimates priced afresh, bit for bit") {
  // A search's worker keeps the layer prices of the shapes it met
  // (TimeModel::LayerReuse) and adds each candidate's CP exchanges: shapes
  // interleaved and met again, with and without CP, every recompute mode,
  // must price exactly as a model that keeps nothing.
  Model m = llama(16, 2048, 8192, 64, {});
  CpModel ring(test::shipped_plugins(), m, h100(), "ring");
  const CompiledModel compiled(m, h100());
  const TimeModel time(compiled, &ring);
  TimeModel::LayerReuse reuse;
  const std::vector<const char*> strategies = {
      "tp=2,pp=2,cp=2,sp=1,mbs=1,recompute=none", "tp=2,pp=2,cp=2,sp=0,mbs=1,recompute=none",
      "tp=2,pp=4,cp=2,sp=1,mbs=1,recompute=full", "tp=4,pp=2,cp=1,sp=1,mbs=2,recompute=selective",
      "tp=2,pp=2,cp=4,sp=1,mbs=1,recompute=none", "tp=2,pp=2,cp=2,sp=1,mbs=1,vpp=2,zero=3",
      "tp=1,pp=1,cp=1,mbs=1,recompute=full",      "tp=1,pp=1,cp=8,mbs=1,recompute=selective",
      "tp=4,pp=2,cp=1,sp=1,mbs=2,recompute=none", "tp=2,pp=2,cp=2,sp=1,mbs=1,recompute=selective"};
  check_reuse(time, reuse, m, strategies);

  // An MoE model through the same reuse (another TimeModel: its prices are
  // not the first's): ep, etp and whether mbn > 1 (the all-to-all's overlap)
  // change a layer's price.
  Model moe = llama(8, 2048, 4096, 64, {});
  for (nds_layer_block* b : {&moe.main.blocks[0].c}) {
    b->experts = 16;
    b->experts_per_token = 2;
    b->moe_ffn_hidden_size = 1024;
    b->ffn_hidden_size = 0;
  }
  const CompiledModel moe_compiled(moe, h100());
  const TimeModel moe_time(moe_compiled);
  check_reuse(
      moe_time, reuse, moe,
      {"tp=2,pp=2,ep=4,etp=1,mbs=1", "tp=2,pp=2,ep=4,etp=2,mbs=1", "tp=2,pp=2,ep=8,etp=1,mbs=1",
       "tp=2,pp=2,ep=4,etp=1,mbs=4", "tp=2,pp=2,ep=4,etp=1,mbs=2,recompute=full",
       "tp=2,pp=2,ep=2,etp=1,mbs=1,recompute=selective",
       // One micro-batch, then two, of one shape: the all-to-all
       // hides behind another micro-batch only in the second.
       "tp=1,pp=1,ep=4,mbs=1", "tp=1,pp=2,ep=4,mbs=1"});
  // And the first model again: its prices were dropped for the second's.
  check_reuse(time, reuse, m, strategies);
}
