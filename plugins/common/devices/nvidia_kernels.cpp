// SPDX-License-Identifier: Apache-2.0
// nvidia_kernels.cpp: what NVIDIA's GEMM and fused-attention kernels reach,
// shared by the device files. Sources: reference/microbenchmarks.md (section
// numbers below), which restates each measurement with its repository.
#include <array>

#include "plugins/common/devices/nvidia.hpp"
#include "plugins/common/gemm_efficiency.hpp"

namespace ndsearch::plugins::nvidia {
namespace {

// The block lengths (tokens, queries = keys) the attention curves sample.
constexpr std::array<double, 4> kSeqLens = {1024, 2048, 4096, 8192};

sdk::Curve curve(const std::array<double, 4>& fractions) {
  return {{kSeqLens.begin(), kSeqLens.end()}, {fractions.begin(), fractions.end()}};
}

sdk::Curve scaled(sdk::Curve c, double factor) {
  for (double& y : c.y) y *= factor;
  return c;
}

// H100 SXM BF16 FlashAttention-3, causal, B = 4, H = 48, D = 128 (meta-pytorch/
// tritonbench PR #1267, §2c), kernel times converted with the FlashAttention
// FLOP convention (forward 4·s²·d·h·B / 2 causal; backward 2.5 x that):
//   forward  141.63 / 368.35 / 1236.90 / 4817.44 us = 364 / 560 / 667 / 685 TFLOP/s,
//   backward 709.66 / 1631.26 / 4643.46 / 15308.16 us = 182 / 316 / 444 / 539 TFLOP/s,
// over the 989.4 TFLOP/s dense bf16 peak. (685 / 989.4 = 0.692: 3.2985e12
// FLOPs in 4817.44 us.)
constexpr std::array<double, 4> kHopperForward = {0.368, 0.566, 0.674, 0.692};
constexpr std::array<double, 4> kHopperBackward = {0.184, 0.319, 0.449, 0.545};

// A100 FlashAttention-2 forward: "up to 230 TFLOP/s", 230 / 312 = 0.737 of
// the bf16 peak ([FA2] §4, §2a; a headline, no per-length table). Derived:
// the curve has Hopper's shape scaled so its 8k point is 0.737, and the
// backward keeps Hopper's backward/forward ratio at each length, which is the
// same factor 0.737 / 0.692 on Hopper's backward.
constexpr double kAmpereBestForward = 230.0 / 312.0;

// B200 FlashAttention-4, hdim 128, S = 8192, B = 4, H = 16, causal (Dao-AILab/
// flash-attention PR #2280, §2c): forward 1418.1, backward 1208.6 TFLOP/s of
// the 2250 dense bf16 peak = 0.630 and 0.537. Shorter blocks scaled by the
// non-causal forward's ratio to 8k of PR #2605 (1k 1540, 2k 1706, 4k 1796,
// 8k 1837 TFLOP/s): 0.838, 0.929, 0.978, 1.
constexpr double kBlackwellPeak = 2250.0;
constexpr double kBlackwellForward8k = 1418.1 / kBlackwellPeak;
constexpr double kBlackwellBackward8k = 1208.6 / kBlackwellPeak;
constexpr std::array<double, 4> kBlackwellNonCausalForward = {1540, 1706, 1796, 1837};

sdk::Curve blackwell_curve(double fraction_at_8k) {
  std::array<double, 4> y{};
  for (size_t i = 0; i < y.size(); ++i)
    y[i] = fraction_at_8k * kBlackwellNonCausalForward[i] / kBlackwellNonCausalForward.back();
  return curve(y);
}

}  // namespace

sdk::DtypePeak tensor_peak(const char* dtype, double peak_flops_per_s, double best_fraction,
                           double small_dim_fraction_at_192) {
  sdk::DtypePeak peak;
  peak.dtype = dtype;
  peak.peak_flops_per_s = peak_flops_per_s;
  peak.matmul_efficiency = gemm_efficiency_curve(peak_flops_per_s, best_fraction, kGemmFixedCostS);
  peak.matmul_small_dim_efficiency = small_dim_efficiency_curve(small_dim_fraction_at_192);
  return peak;
}

sdk::DtypePeak with_attention(sdk::DtypePeak peak, const AttentionCurves& attention) {
  peak.attention_forward_efficiency = attention.forward;
  peak.attention_backward_efficiency = attention.backward;
  return peak;
}

AttentionCurves hopper_attention() {
  return {curve(kHopperForward), curve(kHopperBackward)};
}

AttentionCurves ampere_attention() {
  const double factor = kAmpereBestForward / kHopperForward.back();
  return {scaled(curve(kHopperForward), factor), scaled(curve(kHopperBackward), factor)};
}

AttentionCurves blackwell_attention() {
  return {blackwell_curve(kBlackwellForward8k), blackwell_curve(kBlackwellBackward8k)};
}

}  // namespace ndsearch::plugins::nvidia
