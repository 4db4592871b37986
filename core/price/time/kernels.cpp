// SPDX-License-Identifier: Apache-2.0
#include "core/price/time/kernels.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>

#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// Without a curve from the device, one GEMM reaches this fraction of the
// peak: the middle of the measured large-GEMM fractions of the shipped GPUs
// (0.51 to 0.87, plugins/common/devices/).
constexpr double kDefaultGemmEfficiency = 0.7;

// Without a figure from the device, memory-bound kernels reach this fraction
// of the HBM bandwidth: STREAM Triad on A100, H100 and H200 reaches 0.83-0.89
// of the data-sheet rate (Azure AI-benchmarking-guide, microbenchmarks.md §4).
constexpr double kDefaultMemoryEfficiency = 0.85;

// FlashAttention-2 on H100 SXM: 327.9 TFLOP/s forward at head dim 128,
// batch 2, 8K tokens (Azure/AI-benchmarking-guide, microbenchmarks.md §2a;
// H200 329.3: the kernel does not use Hopper's wgmma and TMA, the [FA3]
// abstract's "35 % utilisation"). Taken as its rate on any GPU newer than
// Ampere, on whose A100 the device curve is FlashAttention-2's own.
constexpr double kFa2ForwardFlopsPerS = 327.9e12;
constexpr double kFa2ReferenceLength = 8192;

// Without attention curves from the device: FlashAttention-3 on H100 SXM,
// bf16, head dim 128, causal (meta-pytorch/tritonbench PR 1267, kernel times
// converted to TFLOP/s with the causal FLOPs, microbenchmarks.md §2c), as a
// fraction of H100's 989.4 TFLOP/s, scaled to the device by its best GEMM
// fraction over H100's (0.80).
// Built at first use: a vector's constructor may throw, which a global's
// initialisation could not report.
const Curve& reference_attention_forward() {
  static const Curve curve{{1024, 2048, 4096, 8192}, {0.368, 0.566, 0.674, 0.693}};
  return curve;
}
const Curve& reference_attention_backward() {
  static const Curve curve{{1024, 2048, 4096, 8192}, {0.184, 0.319, 0.449, 0.545}};
  return curve;
}
constexpr double kReferenceBestGemm = 0.80;

// Every attention curve is measured at head dim 128. FlashAttention at
// head dim 64 reaches 0.65-0.71 of its head-dim-128 throughput on the same
// kernel, machine and lengths: FA4 on B200, Dao-AILab/flash-attention PR
// #2605, the FWD table of its description (ms / TFLOPS / MFU% / TBs / BW%),
// at equal batch x seqlen: non-causal 1K-16K 0.706, 0.684, 0.675, 0.669,
// 0.660 and causal 1K-4K 0.654, 0.670, 0.707 (the pairs the stored copy
// shows), median 0.67. A 64-deep QK^T reuses each loaded tile half as much.
// No published table pairs head dims for another kernel (FlashAttention-3's
// backward bars and Ascend's FlashAttentionScore have none), so the ratio
// stands for all, forward and backward, language and vision layers alike;
// between 64 and 128 linearly, below 64 as at 64 and above 128 as at 128
// (no measurement below; FA3's head-dim-256 bars are read off a figure).
constexpr double kHeadDim64Fraction = 0.67;

double head_dim_fraction(double head_dim) {
  const double t = std::clamp((head_dim - 64) / 64, 0.0, 1.0);
  return kHeadDim64Fraction + t * (1 - kHeadDim64Fraction);
}

const DtypePeak* find_peak(const Device& device, const std::string& dtype) {
  for (const DtypePeak& p : device.peaks)
    if (p.dtype == dtype) return &p;
  return nullptr;
}

// Throws E-DEVICE-DTYPE when the device states no peak for `missing`, which
// `role` computes in. No other dtype's peak stands in: fp8 GEMMs priced at a
// bf16 peak (or fp32 at bf16's) would be another training run, in silence.
// The message names the device, the dtype, the ones it has and both fixes:
// a compute dtype it can run (fp8 needs bf16 or fp16 beside it), or the peak.
[[noreturn]] void no_peak(const Device& device, const std::string& missing, std::string_view role) {
  std::string stated;
  const bool beside_fp8 =
      find_peak(device, "bf16") != nullptr || find_peak(device, "fp16") != nullptr;
  const DtypePeak* runnable = nullptr;  // the first dtype this device can compute in
  for (const DtypePeak& p : device.peaks) {
    stated.append(stated.empty() ? "" : ", ").append(p.dtype);
    if (runnable == nullptr && (p.dtype != "fp8" || beside_fp8)) runnable = &p;
  }
  const std::string set_dtype =
      runnable == nullptr
          ? std::string()
          : fmt::format("set {} or another it has, or ", Setting("dtype").named(runnable->dtype));
  const std::string add =
      device.source.ends_with(".toml")
          ? fmt::format("add `{} = <dense TFLOP/s>` under [peak_tflops] of {}", missing,
                        device.source)
          : fmt::format(
                "state its peak in a device file (`base = \"{}\"` and `{} = <dense TFLOP/s>` "
                "under [peak_tflops]; docs/device-toml.md)",
                device.id, missing);
  throw UserError(
      "E-DEVICE-DTYPE",
      fmt::format("device {} ({}) states no dense peak for {}, the dtype {}; it states {}: {}{}",
                  device.id, device.source, missing, role,
                  stated.empty() ? std::string("none") : stated, set_dtype, add));
}

GemmRate rate_of(const DtypePeak* p, double input_bytes, double output_bytes) {
  GemmRate r;
  r.input_bytes = input_bytes;
  r.output_bytes = output_bytes;
  if (p == nullptr) return r;
  r.peak_flops_per_s = p->peak_flops_per_s;
  r.efficiency = p->matmul_efficiency.x.empty() ? nullptr : &p->matmul_efficiency;
  r.small_dim =
      p->matmul_small_dim_efficiency.x.empty() ? nullptr : &p->matmul_small_dim_efficiency;
  return r;
}

double best_of(const Curve* c) {
  if (c == nullptr || c->y.empty()) return kDefaultGemmEfficiency;
  return *std::max_element(c->y.begin(), c->y.end());
}

}  // namespace

double curve_at(const Curve& c, double x, double fallback) {
  if (c.x.empty()) return fallback;
  if (x <= c.x.front()) return c.y.front();
  if (x >= c.x.back()) return c.y.back();
  const size_t i = static_cast<size_t>(std::upper_bound(c.x.begin(), c.x.end(), x) - c.x.begin());
  const double t = (x - c.x[i - 1]) / (c.x[i] - c.x[i - 1]);
  return c.y[i - 1] + t * (c.y[i] - c.y[i - 1]);
}

Kernels::Kernels(const Device& device, const std::string& dtype, const std::string& high_dtype,
                 double activation_bytes, double time_scale, const Calibration& calibration,
                 nds_attention_kernel attention_kernel)
    : gemm_scale_(calibration.gemm), time_scale_(time_scale) {
  const DtypePeak* linear = find_peak(device, dtype);
  if (linear == nullptr) no_peak(device, dtype, "the linear layers' GEMMs run in");
  const DtypePeak* high = find_peak(device, high_dtype);
  if (high == nullptr)
    no_peak(device, high_dtype, "attention, the output head and the router keep beside fp8 GEMMs");
  linear_dtype_ = dtype;
  high_dtype_ = high_dtype;
  // An fp8 GEMM reads fp8 operands (its inputs cast beforehand) and writes
  // the activation dtype; others read and write the activation dtype.
  linear_ = rate_of(linear, linear_dtype_ == "fp8" ? 1 : activation_bytes, activation_bytes);
  high_ = rate_of(high, activation_bytes, activation_bytes);
  if (high != nullptr && !high->attention_forward_efficiency.x.empty() &&
      !high->attention_backward_efficiency.x.empty()) {
    attention_forward_ = &high->attention_forward_efficiency;
    attention_backward_ = &high->attention_backward_efficiency;
  } else {
    attention_forward_ = &reference_attention_forward();
    attention_backward_ = &reference_attention_backward();
    attention_scale_ = best_of(high_.efficiency) / kReferenceBestGemm;
    attention_default_ = true;
  }
  const double fraction = device.memory_bandwidth_efficiency > 0
                              ? device.memory_bandwidth_efficiency
                              : kDefaultMemoryEfficiency;
  bandwidth_default_ = device.memory_bandwidth_efficiency <= 0;
  achieved_bandwidth_ = calibration.hbm * fraction * device.memory_bandwidth_bytes_per_s;
  if (attention_kernel == NDS_ATTENTION_KERNEL_FA2) {
    // The device curve's forward rate on an 8K causal block against
    // FlashAttention-2's: both passes slowed alike, as ampere_attention's
    // backward keeps Hopper's ratio of the passes.
    const double device_rate = attention_scale_ * high_.peak_flops_per_s *
                               curve_at(*attention_forward_, kFa2ReferenceLength, 0.5);
    if (device_rate > 0) fa2_scale_ = std::min(1.0, kFa2ForwardFlopsPerS / device_rate);
    attention_scale_ *= fa2_scale_;
  }
  attention_scale_ *= calibration.attention;
}

inline double Kernels::gemm_seconds(const GemmRate& rate, double m, double n, double k,
                                    double count) const {
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0 || rate.peak_flops_per_s <= 0) return 0;
  const double flops = 2 * m * n * k * count;
  double efficiency = rate.efficiency == nullptr
                          ? kDefaultGemmEfficiency
                          : curve_at(*rate.efficiency, flops, kDefaultGemmEfficiency);
  if (rate.small_dim != nullptr) efficiency *= curve_at(*rate.small_dim, std::min(m, n), 1.0);
  const double compute = time_scale_ * flops / (rate.peak_flops_per_s * efficiency * gemm_scale_);
  const double traffic =
      memory(count * ((m * k + k * n) * rate.input_bytes + m * n * rate.output_bytes));
  return std::max(compute, traffic);
}

double Kernels::gemm(const GemmRate& rate, double m, double n, double k, double count) const {
  return count * gemm_seconds(rate, m, n, k, 1);
}

double Kernels::batched_gemm(const GemmRate& rate, double m, double n, double k,
                             double count) const {
  return gemm_seconds(rate, m, n, k, count);
}

double Kernels::attention(Pass pass, double queries, double keys, double qk_dim, double v_dim,
                          double instances, bool causal) const {
  if (queries <= 0 || keys <= 0 || instances <= 0) return 0;
  // FlashAttention's count (Dao 2023; Shah et al. 2024): 2·s_q·s_k·(d_qk +
  // d_v) per head forward, half of it under a causal mask; the backward
  // runs 2.5x the forward's FLOPs (five matmuls against two).
  double flops = 2 * queries * keys * (qk_dim + v_dim) * instances;
  if (causal) flops /= 2;
  if (pass == Pass::backward) flops *= 2.5;
  // The curves are measured on causal self-attention over a block of s
  // tokens; a full (unmasked) s x s block gives each query tile as much work
  // as a causal block of 2s does on average, so it runs at the curve's 2s.
  const double length = causal ? std::min(queries, keys) : 2 * std::min(queries, keys);
  const Curve& curve = pass == Pass::forward ? *attention_forward_ : *attention_backward_;
  const double efficiency =
      attention_scale_ * curve_at(curve, length, 0.5) * head_dim_fraction((qk_dim + v_dim) / 2);
  return time_scale_ * flops / (high_.peak_flops_per_s * efficiency);
}

std::string Kernels::assumptions() const {
  std::string text = fmt::format("linear-layer GEMMs in {}, attention and output head in {}",
                                 linear_dtype_, high_dtype_);
  if (fa2_scale_ < 1)
    text += fmt::format(
        "; attention by FlashAttention-2 (the trainer's kernel): {:.0f} % of the device curve's "
        "rate, its {:g} TFLOP/s forward on H100 (hdim 128, 8K), which it does not pass on "
        "another GPU",
        100 * fa2_scale_, kFa2ForwardFlopsPerS / 1e12);
  if (attention_default_)
    text +=
        "; attention kernels: no curve from the device, FlashAttention-3 on H100 scaled by the "
        "device's best GEMM fraction";
  if (bandwidth_default_)
    text += fmt::format(
        "; memory-bound kernels at {:.0f} % of HBM bandwidth (no figure from the device)",
        100 * kDefaultMemoryEfficiency);
  return text;
}

}  // namespace ndsearch
