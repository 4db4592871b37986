// SPDX-License-Identifier: Apache-2.0
// test_memory.cpp: the memory passes against published formulas, through the
// core's evaluator and the shipped plugins: Korthikanti et al. 2022 Table 2,
// Megatron-LM's distributed-optimizer bytes per parameter, the ZeRO paper's
// model states, Transformer Engine's fp8 weight copies, and DESIGN §8.6's
// micro-batches in flight.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <utility>

#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/model/params.hpp"
#include "tests/support/gpt_memory.hpp"

using namespace ndsearch;

namespace {

using test::gpt;
using test::memory;
using test::Shape;
using test::strategy;

// GPT-3 175B (Brown et al. 2020): s = 2048, h = 12288, a = 96; fp16; b = 1.
const Shape kGpt3{3, 12288, 96, 4 * 12288, 51200, 2048, "fp16", "fp16", "fp32", 2};
constexpr double s = 2048, h = 12288, a = 96;

// The activations of the middle rank of three, one layer each, one micro-batch
// in flight (1F1B, p = 3, mbn = 1: rank 1 holds min(3 - 1, 1) = 1): exactly one
// layer's, without the embedding's or the head's.
double one_layer(const char* text, const Shape& shape = kGpt3,
                 nds_memory_term kind = NDS_MEMORY_ACTIVATIONS) {
  Model m = gpt(shape);
  return memory(m, strategy(text), {1, 1, 1})[1].bytes[kind];
}

}  // namespace

TEST_CASE("Korthikanti Table 2: activations of a GPT-3 175B layer") {
  // Without parallelism: sbh(34 + 5as/h) = 2048·12288·(34 + 80) bytes.
  CHECK(one_layer("dp=1,tp=1,pp=3,sp=0,mbs=1,mbn=1") == s * h * (34 + 5 * a * s / h));
  CHECK(s * h * (34 + 5 * a * s / h) == 2868903936.0);
  // Tensor parallelism t = 8: sbh(10 + 24/t + 5as/(ht)).
  CHECK(one_layer("dp=1,tp=8,pp=3,sp=0,mbs=1,mbn=1") ==
        Approx(s * h * (10 + 24.0 / 8 + 5 * a * s / (h * 8))));
  // Tensor and sequence parallelism: sbh/t · (34 + 5as/h).
  CHECK(one_layer("dp=1,tp=8,pp=3,sp=1,mbs=1,mbn=1") == Approx(s * h / 8 * (34 + 5 * a * s / h)));
  // ... with selective recompute: sbh · 34/t.
  CHECK(one_layer("dp=1,tp=8,pp=3,sp=1,mbs=1,mbn=1,recompute=selective") == Approx(s * h * 34 / 8));
}

TEST_CASE("Selective recompute drops what its op set rebuilds") {
  // Korthikanti's GPT-3 layer per token with TP and SP (b = 2, /t each):
  // replicated 10h (norm inputs 4h, QKV and MLP inputs 2h each, masks 2h),
  // Q K V and the output projection's input 8h, the GeLU MLP's 16h (its
  // 4h-wide output, activation and second GEMM's input, 2 bytes each), and
  // 5as per key: sbh/t · (34 + 5as/h).
  auto layer_with = [](uint64_t ops) {
    Model m = gpt(kGpt3);
    m.training.recompute_ops = ops;
    const nds_strategy s = strategy("dp=1,tp=8,pp=3,sp=1,mbs=1,mbn=1,recompute=selective");
    return memory(m, s, {1, 1, 1})[1].bytes[NDS_MEMORY_ACTIVATIONS];
  };
  const double t = 8;
  // None stated: the attention core, the 5as/h term.
  CHECK(layer_with(0) == Approx(s * h / t * 34));
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION) == Approx(s * h / t * 34));
  // The MLP alone: its 16h go, the per-key tensors stay.
  CHECK(layer_with(NDS_RECOMPUTE_OP_MLP) == Approx(s * h / t * (18 + 5 * a * s / h)));
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_MLP) ==
        Approx(s * h / t * 18));
  // Megatron's moe_act recomputes the routed experts' activation only: a
  // dense layer keeps its own.
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_ACTIVATION) ==
        Approx(s * h / t * 34));
  // The norms' outputs, the QKV and MLP inputs: 4h.
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_NORM) ==
        Approx(s * h / t * 30));
  // A dense model has no MoE layer to drop.
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_MOE) ==
        Approx(s * h / t * 34));
  // MindSpeed's activation-function recompute (ABI 1.12 mlp_activation): the
  // GeLU's output, the second GEMM's 4h-wide input at 2 bytes, 8h, goes; the
  // first GEMM's output stays to rebuild it.
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_MLP_ACTIVATION) ==
        Approx(s * h / t * 26));
  // The MLP whole already holds it.
  CHECK(layer_with(NDS_RECOMPUTE_OP_MLP | NDS_RECOMPUTE_OP_MLP_ACTIVATION) ==
        Approx(layer_with(NDS_RECOMPUTE_OP_MLP)));
}

TEST_CASE(
    "Selective recompute of the MoE layer drops its routed tokens, router logits and shared "
    "experts") {
  // One MoE layer of h 1024, 16 experts of 512 (SwiGLU), top-2, one shared
  // expert of 1024, bf16 (b = 2), flash attention, seq 2048; tp = etp = 1, one
  // micro-batch. Per token the MoE layer keeps: the router's fp32 logits 4E;
  // per routed token (k = 2) the expert's input 2h and intermediates
  // (SwiGLU: gate and up outputs 2·2f, the second GEMM's input 2f, 6f); the
  // shared expert's intermediates 6·1024. Selective `moe` drops them all.
  auto layer_with = [](uint64_t ops) {
    Model m;
    m.file = "test";
    m.framework = "test";
    ModelBuilder b(m, "test", false);
    auto set = [&](const char* key, ModelBuilder::Value v) {
      REQUIRE(b.set(key, v, "t") == nullptr);
    };
    REQUIRE(b.begin_block("decoder", 3, "t") == nullptr);
    set("hidden_size", int64_t{1024});
    set("heads", int64_t{8});
    set("ffn", std::string("swiglu"));
    set("experts", int64_t{16});
    set("experts_per_token", int64_t{2});
    set("moe_ffn_hidden_size", int64_t{512});
    set("shared_experts", int64_t{1});
    set("shared_expert_ffn_hidden_size", int64_t{1024});
    set("norm", std::string("rmsnorm"));
    REQUIRE(b.end_block() == nullptr);
    set("vocab_size", int64_t{32000});
    set("flash_attention", int64_t{1});
    set("seq_len", int64_t{2048});
    set("params_dtype", std::string("bf16"));
    set("grads_dtype", std::string("fp32"));
    finalize_model(m);
    m.training.recompute_ops = ops;
    const nds_strategy s = strategy("dp=1,tp=1,pp=3,ep=1,mbs=1,mbn=1,recompute=selective");
    return memory(m, s, {1, 1, 1})[1].bytes[NDS_MEMORY_ACTIVATIONS];
  };
  const double tokens = 2048, h = 1024, E = 16, k = 2, f = 512, shared = 1024;
  const double moe = 4 * E + k * (2 * h + 6 * f) + 6 * shared;
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION) -
            layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_MOE) ==
        Approx(tokens * moe));
  // The activation op alone (Megatron's moe_act) drops the routed experts'
  // second GEMM inputs, 2f per routed token; the shared expert keeps its own.
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION) -
            layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_ACTIVATION) ==
        Approx(tokens * k * 2 * f));
  // With moe, activation adds nothing: the MoE layer's tensors are gone already.
  CHECK(layer_with(NDS_RECOMPUTE_OP_MOE | NDS_RECOMPUTE_OP_ACTIVATION) ==
        Approx(layer_with(NDS_RECOMPUTE_OP_MOE)));
  // mlp_activation (ABI 1.12) drops the shared expert's second GEMM input,
  // 2·1024 a token; with activation, MindSpeed's --recompute-activation-function
  // drops the routed experts' too. Under moe it adds nothing.
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION) -
            layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_MLP_ACTIVATION) ==
        Approx(tokens * 2 * shared));
  CHECK(layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION) - layer_with(NDS_RECOMPUTE_OP_CORE_ATTENTION |
                                                                 NDS_RECOMPUTE_OP_MLP_ACTIVATION |
                                                                 NDS_RECOMPUTE_OP_ACTIVATION) ==
        Approx(tokens * (2 * shared + k * 2 * f)));
  CHECK(layer_with(NDS_RECOMPUTE_OP_MOE | NDS_RECOMPUTE_OP_MLP_ACTIVATION) ==
        Approx(layer_with(NDS_RECOMPUTE_OP_MOE)));
}

TEST_CASE("Korthikanti Table 2: full recompute keeps 2sbh per layer") {
  // Each recomputed layer keeps its input, 2sbh; once per rank, the layer being
  // recomputed holds its full activations. The difference between a rank of
  // three such layers and one of two is one layer's share: 2sbh.
  Model m = gpt(Shape{6, 12288, 96, 4 * 12288, 51200, 2048, "fp16", "fp16", "fp32", 2});
  const nds_strategy full = strategy("dp=1,tp=8,pp=3,sp=0,mbs=1,mbn=1,recompute=full");
  const double three = memory(m, full, {1, 3, 2})[1].bytes[NDS_MEMORY_ACTIVATIONS];
  const double two = memory(m, full, {2, 2, 2})[1].bytes[NDS_MEMORY_ACTIVATIONS];
  CHECK(three - two == Approx(2 * s * h));
}

namespace {
// Bytes per parameter of params + grads + optimizer on one rank holding the
// whole model (tp = pp = 1), ZeRO over d = dp.
double bytes_per_parameter(const Shape& shape, const char* text) {
  Model m = gpt(shape);
  const double params = count_parameters(m)->total;
  const auto ranks = memory(m, strategy(text), {static_cast<uint32_t>(shape.layers)});
  const auto& b = ranks[0].bytes;
  return (b[NDS_MEMORY_PARAMS] + b[NDS_MEMORY_GRADS] + b[NDS_MEMORY_OPTIMIZER]) / params;
}
Shape small(const char* dtype, const char* grads, const char* master, int64_t states) {
  return {2, 1024, 16, 4096, 32000, 1024, dtype, grads, master, states};
}
}  // namespace

TEST_CASE("Megatron-LM distributed optimizer: bytes per parameter") {
  // Megatron-LM docs (distributed optimizer): bf16 params + fp32 grads: 18
  // bytes, 6 + 12/d distributed; fp32: 16 and 8 + 8/d (no master copy).
  const double d = 8;
  CHECK(bytes_per_parameter(small("bf16", "fp32", "fp32", 2), "dp=8,zero=0,op=8,mbs=1,mbn=1") ==
        Approx(18));
  CHECK(bytes_per_parameter(small("bf16", "fp32", "fp32", 2), "dp=8,zero=1,op=8,mbs=1,mbn=1") ==
        Approx(6 + 12 / d));
  CHECK(bytes_per_parameter(small("fp32", "fp32", "none", 2), "dp=8,zero=0,op=8,mbs=1,mbn=1") ==
        Approx(16));
  CHECK(bytes_per_parameter(small("fp32", "fp32", "none", 2), "dp=8,zero=1,op=8,mbs=1,mbn=1") ==
        Approx(8 + 8 / d));
}

TEST_CASE("fp16 gradients are widened to fp32 for the step, in the activations' freed memory") {
  // Megatron-LM docs: fp16 params + fp16 grads take 20 bytes, 4 + 16/d
  // distributed: the optimizer's fp32 copy of the gradients (4 bytes, sharded
  // like the master weights) beside 2 + 2 + 4 + 8. The copy lives from the
  // step to the next iteration's zero_grad, when the activations are freed,
  // so the peak grows by 4·P/d - A (A: the rank's activations) where that is
  // positive. Short sequences (s = 64) make A small against 4·P.
  const double d = 8;
  Shape tiny = small("fp16", "fp16", "fp32", 2);
  tiny.seq = 64;
  for (const char* text : {"dp=8,zero=0,op=8,mbs=1,mbn=1", "dp=8,zero=1,op=8,mbs=1,mbn=1"}) {
    Model m = gpt(tiny);
    const double params = count_parameters(m)->total;
    const auto ranks = memory(m, strategy(text), {2});
    const double widened =
        (std::string(text).find("zero=1") != std::string::npos ? 4 / d : 4) * params;
    const double activations = ranks[0].bytes[NDS_MEMORY_ACTIVATIONS];
    REQUIRE(activations < widened);
    const double persistent =
        std::string(text).find("zero=1") != std::string::npos ? 4 + 12 / d : 16;
    CHECK(bytes_per_parameter(tiny, text) == Approx(persistent + (widened - activations) / params));
  }
  // At s = 1024 the same model's activations exceed the copy: the peak does not move.
  CHECK(bytes_per_parameter(small("fp16", "fp16", "fp32", 2), "dp=8,zero=0,op=8,mbs=1,mbn=1") ==
        Approx(16));
}

TEST_CASE("ZeRO paper: model states of 7.5B parameters on 64 devices") {
  // Rajbhandari et al. 2020, Figure 1: Psi = 7.5B, N_d = 64, K = 12 (fp16
  // params and grads, fp32 master + Adam m and v): baseline (2 + 2 + K)·Psi =
  // 120 GB; P_os 2Psi + 2Psi + K·Psi/N_d = 31.4 GB; P_os+g 2Psi + (2 + K)Psi/N_d
  // = 16.6 GB; P_os+g+p (2 + 2 + K)Psi/N_d = 1.88 GB.
  const double psi = 7.5e9;
  const Shape fp16 = small("fp16", "fp16", "fp32", 2);
  CHECK(bytes_per_parameter(fp16, "dp=64,zero=0,op=64,mbs=1,mbn=1") * psi / 1e9 ==
        Approx(120).margin(0.05));
  CHECK(bytes_per_parameter(fp16, "dp=64,zero=1,op=64,mbs=1,mbn=1") * psi / 1e9 ==
        Approx(31.4).margin(0.05));
  CHECK(bytes_per_parameter(fp16, "dp=64,zero=2,op=64,mbs=1,mbn=1") * psi / 1e9 ==
        Approx(16.6).margin(0.05));
  CHECK(bytes_per_parameter(fp16, "dp=64,zero=3,op=64,mbs=1,mbn=1") * psi / 1e9 ==
        Approx(1.88).margin(0.01));
}

TEST_CASE(
    "fp8 GEMMs keep Korthikanti's activations in bf16 but the linears' inputs as fp8, and stated "
    "fp8 activations take one byte") {
  // fp8 GEMMs over fp16 parameters: Transformer Engine keeps activations in
  // bf16 (2 bytes) except each fp8 linear's input, which it saves as the fp8
  // cast its weight-gradient GEMM reads: QKV input 2sbh -> sbh, projection
  // input 2sbh -> sbh, MLP input 2sbh -> sbh, fc2 input 8sbh -> 4sbh, so
  // Table 2's sbh(34 + 5as/h) becomes sbh(27 + 5as/h).
  Shape fp8 = kGpt3;
  fp8.compute = "fp8";
  CHECK(one_layer("dp=1,tp=1,pp=3,sp=0,mbs=1,mbn=1", fp8) == s * h * (27 + 5 * a * s / h));
  // Activations stated fp8, b = 1 (the pass's terms with b = 1; the dropout
  // masks stay 1 byte): norms' inputs 2bh + QKV input bh + MLP input bh + masks
  // 2h + Q, K, V 3bh + projection input bh + GeLU 2b·4h = 18h per token, and
  // per key a(b + 1 + b) = 3a: sbh(18 + 3as/h).
  fp8.activations = "fp8";
  CHECK(one_layer("dp=1,tp=1,pp=3,sp=0,mbs=1,mbn=1", fp8) == s * h * (18 + 3 * a * s / h));
}

TEST_CASE("fp8 GEMMs: the TP and PP buffers carry bf16 activations") {
  // comm_buffers.cpp, tp = 8 with SP, pp = 3, dp = 1 (no gradient bucket):
  // the all-gathered layer input s·mbs·h·b and a send and a receive buffer of
  // s·mbs·h·b/t, b = 2 bytes of bf16 (not fp8's 1, what ABI 1.0 read).
  Shape fp8 = kGpt3;
  fp8.compute = "fp8";
  CHECK(one_layer("dp=1,tp=8,pp=3,sp=1,mbs=1,mbn=1", fp8, NDS_MEMORY_COMM_BUFFERS) ==
        Approx(s * h * 2 + 2 * s * h * 2 / 8));
}

TEST_CASE(
    "fp8 GEMMs keep an fp8 weight and its transpose per linear layer, with the recipe's scales") {
  // Transformer Engine's fp8 weight workspaces: 1 + 1 bytes per parameter of
  // the attention and MLP linears. small(): 2 layers, h = 1024, 16 heads, GeLU
  // f = 4096, biases: attention 4h² + (q + 2k + h) = 4,194,304 + 4,096 =
  // 4,198,400; MLP 2hf + f + h = 8,393,728; 12,592,128 per layer, 25,184,256
  // in all (the embedding, head and norms stay bf16 only).
  const double linear = 2 * 12592128.0;
  auto params_bytes = [](const Shape& shape, const char* text) {
    Model m = gpt(shape);
    const auto ranks = memory(m, strategy(text), {static_cast<uint32_t>(shape.layers)});
    return std::pair{ranks[0].bytes[NDS_MEMORY_PARAMS], count_parameters(m)->total};
  };
  Shape bf16 = small("bf16", "fp32", "fp32", 2);
  bf16.compute = "fp8";
  auto [bytes, params] = params_bytes(bf16, "dp=8,zero=1,op=8,mbs=1,mbn=1");
  CHECK(bytes == Approx(2 * params + 2 * linear));
  // ZeRO-3: the copies exist for the two gathered layers only (2 x 2 bytes x a layer).
  std::tie(bytes, params) = params_bytes(bf16, "dp=8,zero=3,op=8,mbs=1,mbn=1");
  CHECK(bytes == Approx(2 * params / 8 + 2 * 2 * 12592128.0));
  // MXFP8: each copy carries an E8M0 scale per 32 values, both ways: 2 + 2/32.
  Shape mx = bf16;
  mx.fp8_recipe = "mxfp8";
  std::tie(bytes, params) = params_bytes(mx, "dp=8,zero=1,op=8,mbs=1,mbn=1");
  CHECK(bytes == Approx(2 * params + (2 + 2.0 / 32) * linear));
  // Blockwise: an fp32 scale per 128 x 128 block, both ways: 2 + 8/16384.
  Shape block = bf16;
  block.fp8_recipe = "blockwise";
  std::tie(bytes, params) = params_bytes(block, "dp=8,zero=1,op=8,mbs=1,mbn=1");
  CHECK(bytes == Approx(2 * params + (2 + 8.0 / 16384) * linear));
  // fp8 primary weights (Megatron-LM's --fp8-param-gather): the parameter is
  // the rowwise copy, the transpose rebuilt after each gather is kept beside it.
  Shape primary = small("fp8", "fp32", "fp32", 2);
  std::tie(bytes, params) = params_bytes(primary, "dp=8,zero=1,op=8,mbs=1,mbn=1");
  CHECK(bytes == Approx(1 * params + 1 * linear));
  // bf16 GEMMs: no copy.
  std::tie(bytes, params) =
      params_bytes(small("bf16", "fp32", "fp32", 2), "dp=8,zero=1,op=8,mbs=1,mbn=1");
  CHECK(bytes == Approx(2 * params));
}

TEST_CASE("Swapped attention leaves the device between its forward and backward, one layer back") {
  // MindSpeed's --swap-attention (ABI 1.9 swapped_ops = attention): per
  // token, Korthikanti's attention terms leave each layer, the QKV input 2h,
  // Q and K 4h, V 2h and the projection's input 2h (10h), and the per-key
  // softmax, its mask and dropout output, 5as; the layer keeps 24h of its
  // sbh(34 + 5as/h). One layer's come back ahead of its backward. The middle
  // rank of GPT-3 holding two layers, one micro-batch:
  // 2 x 24sh + (10sh + 5as^2) = s(58h + 5as).
  Shape four = kGpt3;
  four.layers = 4;  // 1 + 2 + 1 on the three ranks
  Model m = gpt(four);
  const nds_strategy st = strategy("dp=1,tp=1,pp=3,sp=0,mbs=1,mbn=1");
  const double kept = memory(m, st, {1, 2, 1})[1].bytes[NDS_MEMORY_ACTIVATIONS];
  CHECK(kept == 2 * s * h * (34 + 5 * a * s / h));
  m.training.swapped_ops = NDS_RECOMPUTE_OP_ATTENTION;
  CHECK(memory(m, st, {1, 2, 1})[1].bytes[NDS_MEMORY_ACTIVATIONS] == s * (58 * h + 5 * a * s));
  // Under selective recompute of the attention core the per-key terms are
  // rebuilt, not swapped: 2 x 24sh + 10sh, taken off once.
  const nds_strategy sel = strategy("dp=1,tp=1,pp=3,sp=0,mbs=1,mbn=1,recompute=selective");
  CHECK(memory(m, sel, {1, 2, 1})[1].bytes[NDS_MEMORY_ACTIVATIONS] == s * 58 * h);
}

TEST_CASE("MindSpeed's reused fp32 parameters and swapped optimizer, per parameter") {
  // --reuse-fp32-param (ABI 1.9 master_reuses_params): the fp32 master is the
  // bf16 parameter plus a 16-bit residual, 2 bytes beyond it. bf16 params,
  // fp32 gradients, Adam in fp32, ZeRO-1 over 8: 2 + 4 + (2 + 8) / 8 a
  // parameter (MindSpeed's 6 + 10/DP), against 6 + 12/8 without.
  auto optimizer = [](bool reuse, bool swap) {
    Model m = gpt(small("bf16", "fp32", "fp32", 2));
    m.training.master_reuses_params = reuse ? 1 : 0;
    m.training.swap_optimizer = swap ? 1 : 0;
    const auto ranks = memory(m, strategy("dp=8,zero=1,op=8,mbs=1,mbn=1"), {2});
    return std::pair{ranks[0].bytes[NDS_MEMORY_OPTIMIZER], count_parameters(m)->total};
  };
  auto [plain, params] = optimizer(false, false);
  CHECK(plain == Approx(params * 12 / 8));
  CHECK(optimizer(true, false).first == Approx(params * 10 / 8));
  // --swap-optimizer: the master and the states live on the host.
  CHECK(optimizer(false, true).first == 0);
}

TEST_CASE("Micro-batches in flight: 1F1B GPipe and interleaved") {
  // DESIGN §8.6: 1F1B stage r of p holds min(p - r, m): p = 4, m = 8 -> 4 3 2 1.
  CHECK(micro_batches_in_flight(strategy("pp=4,mbn=8,vpp=1,schedule=1f1b")) ==
        std::vector<uint32_t>{4, 3, 2, 1});
  CHECK(micro_batches_in_flight(strategy("pp=4,mbn=2,vpp=1,schedule=1f1b")) ==
        std::vector<uint32_t>{2, 2, 2, 1});
  CHECK(micro_batches_in_flight(strategy("pp=4,mbn=8,vpp=1,schedule=gpipe")) ==
        std::vector<uint32_t>{8, 8, 8, 8});
  // Interleaved, p = 4, v = 2, m = 8: rank r holds (p - r - 1)·2 + (v - 1)·p + 1
  // chunk activations, 11 9 7 5; step k runs chunk (k / p) mod v, so rank 0's
  // 11 steps are 4 on chunk 0, 4 on chunk 1, 3 on chunk 0 again: 7 + 4.
  const auto held = micro_batches_in_flight(strategy("pp=4,mbn=8,vpp=2"));
  CHECK(held == std::vector<uint32_t>{7, 4, 5, 4, 4, 3, 4, 1});
  for (size_t r = 0; r < 4; ++r) CHECK(held[2 * r] + held[2 * r + 1] == 11 - 2 * r);
}

TEST_CASE("Micro-batches in flight: zb-v, DualPipe and DualPipe-V") {
  // ZB-V as the reference prices it (§5.7): 2·min(p, m) - 1 - r and r (at
  // least 1): p = 4, m = 8 -> (7, 1) (6, 1) (5, 2) (4, 3); under 2p chunk-loads
  // a rank, the paper's "same peak as 1F1B" (p stage-loads of two chunks each).
  CHECK(micro_batches_in_flight(strategy("pp=4,mbn=8,vpp=2,schedule=zb-v")) ==
        std::vector<uint32_t>{7, 1, 6, 1, 5, 2, 4, 3});
  // DualPipe, p = 4, m = 8 (4 a direction): dualpipe.py's warm-up runs
  // 2·(p/2 - h - 1) + h + 1 forwards of the rank's starting direction and h + 1
  // of the other (h = min(r, p-1-r)), then one more of the first before the
  // first backward: stage r holds p - r, stage p-1-r holds r + 1; p + 1 = 5
  // in all on every rank, DeepSeek-V3's Table 2 ("PP + 1").
  const auto dual = micro_batches_in_flight(strategy("pp=4,mbn=8,vpp=2,schedule=dualpipe"));
  CHECK(dual == std::vector<uint32_t>{4, 1, 3, 2, 2, 3, 1, 4});
  for (size_t r = 0; r < 4; ++r) CHECK(dual[2 * r] + dual[2 * r + 1] == 5);
  // DualPipe-V, p = 4, m = 8: 2·(p - r - 1) + r + 1 + 1 of chunk 0 and r + 1
  // of chunk 1: 2p - r and r + 1, 2p + 1 = 9 chunk-loads (its "PP + 1" over 2p stages).
  const auto v = micro_batches_in_flight(strategy("pp=4,mbn=8,vpp=2,schedule=dualpipe-v"));
  CHECK(v == std::vector<uint32_t>{8, 1, 7, 2, 6, 3, 5, 4});
}

TEST_CASE("DualPipe places pp stages twice: stage r and stage pp-1-r on rank r") {
  // 8 layers over pp 4: 2 a stage. Rank 0 holds layers 0-1 (with the
  // embedding) and 6-7 (with the head); rank 3 the same two stages the other
  // way round; DualPipe-V places 2·pp stages of 1 in a V instead.
  const Model m = test::gpt({8, 1024, 16, 4096, 32000, 2048, "bf16", "fp32", "fp32", 2});
  const Placement dual = place_layers(strategy("pp=4,mbn=8,vpp=2,schedule=dualpipe"), m, false);
  CHECK(dual.chunk_layers == std::vector<uint32_t>{2, 2, 2, 2, 2, 2, 2, 2});
  CHECK(dual.chunk_first_layer == std::vector<uint32_t>{0, 6, 2, 4, 4, 2, 6, 0});
  const Placement v = place_layers(strategy("pp=4,mbn=8,vpp=2,schedule=dualpipe-v"), m, false);
  CHECK(v.chunk_layers == std::vector<uint32_t>{1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(v.chunk_first_layer == std::vector<uint32_t>{0, 7, 1, 6, 2, 5, 3, 4});
}

TEST_CASE("The default split gives the remainder to the first stages") {
  // reference §8.3, vpp = 1: L // p each, +1 for the first L % p stages.
  std::vector<uint32_t> expected(16, 3);
  for (size_t i = 0; i < 13; ++i) expected[i] = 4;  // 61 = 16·3 + 13 (DeepSeek-V3 on pp 16)
  CHECK(default_split(61, 16, 1) == expected);
  // vpp = 2, p = 2, L = 10: 2 each, 2 left: the adapter places one at (chunk 0,
  // stage 0), moves it to (chunk 1, stage 1), and make_valid adds the other to
  // the first smallest entry, (chunk 0, stage 0): virtual stages 3, 2, 2, 3.
  CHECK(default_split(10, 2, 2) == std::vector<uint32_t>{3, 2, 2, 3});
  CHECK(default_split(80, 4, 1) == std::vector<uint32_t>{20, 20, 20, 20});
}
