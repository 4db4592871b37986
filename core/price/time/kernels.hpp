// SPDX-License-Identifier: Apache-2.0
// kernels.hpp: seconds of the kernels a training step runs on one device,
// from the device's figures: GEMMs by shape and dtype (a roofline of the
// efficiency for their size and smallest dimension against HBM traffic),
// fused attention by block length, causality and pass, and memory-bound
// kernels at the achieved HBM bandwidth.
#pragma once

#include <string>

#include <ndsearch/nds_model.h>

#include "core/compile/calibration.hpp"
#include "core/hardware/device.hpp"

namespace ndsearch {

// The rate one class of GEMM runs at: a dtype's dense peak and its curves.
struct GemmRate {
  double peak_flops_per_s = 0;
  const Curve* efficiency = nullptr;  // over one GEMM's FLOPs
  const Curve* small_dim = nullptr;   // multiplier over min(m, n)
  double input_bytes = 2, output_bytes = 2;
};

enum class Pass { forward, backward };

class Kernels {
 public:
  // `dtype`: the dtype key the linear layers' GEMMs run in ("bf16", "fp8",
  // ...); `high_dtype`: the one attention, the output head and the router
  // keep (the same unless an fp8 recipe runs the linears in fp8).
  // `time_scale`: how much longer kernels take in training than in the
  // micro-benchmarks (1 + the trainer's fitted kernel slowdown).
  // `calibration`: a user's GEMM, attention and HBM scales on top (its other
  // factors act outside the kernels). Throws UserError E-DEVICE-DTYPE when the
  // device states no peak for `dtype` or `high_dtype`: no other dtype's peak
  // stands in for it.
  // `attention_kernel`: the trainer's (NDS_ATTENTION_KERNEL_*), FlashAttention-2
  // no faster than its H100 rate.
  Kernels(const Device& device, const std::string& dtype, const std::string& high_dtype,
          double activation_bytes, double time_scale = 1, const Calibration& calibration = {},
          nds_attention_kernel attention_kernel = NDS_ATTENTION_KERNEL_DEVICE);

  // C[m,n] = A[m,k]·B[k,n], `count` times: the slower of its compute and its
  // memory traffic (reading A and B, writing C) at the achieved bandwidth.
  // The efficiency is the device's for the GEMM's FLOPs times its multiplier
  // for the smaller output dimension min(m, n) (a thin output fills its
  // tiles partly; a short k only lowers the arithmetic intensity, which the
  // roofline counts).
  double gemm(const GemmRate& rate, double m, double n, double k, double count = 1) const;
  // The same `count` GEMMs as one batched kernel (torch.bmm, cuBLAS strided
  // batched): one launch, its efficiency that of all their FLOPs together.
  double batched_gemm(const GemmRate& rate, double m, double n, double k, double count) const;
  const GemmRate& linear() const { return linear_; }  // the linear layers
  const GemmRate& high() const { return high_; }      // attention, head, router
  // The dtype the linear GEMMs run in (the recipe's, else the compute dtype).
  const std::string& linear_dtype() const { return linear_dtype_; }

  // A fused (flash) attention pass over `instances` (heads x sequences) of
  // `queries` x `keys`, head dims `qk_dim` and `v_dim`; `causal` for a
  // block on the diagonal (the kernel skips its masked half).
  double attention(Pass pass, double queries, double keys, double qk_dim, double v_dim,
                   double instances, bool causal) const;

  double memory(double bytes) const { return time_scale_ * bytes / achieved_bandwidth_; }

  // What the estimates assume of this device's kernels, in words.
  std::string assumptions() const;

 private:
  // The one formula of gemm and batched_gemm, inlined into both: the search
  // prices millions of GEMMs, and gemm's count of 1 folds into it there.
  [[gnu::always_inline]] inline double gemm_seconds(const GemmRate& rate, double m, double n,
                                                    double k, double count) const;
  GemmRate linear_, high_;
  std::string linear_dtype_, high_dtype_;
  const Curve* attention_forward_ = nullptr;
  const Curve* attention_backward_ = nullptr;
  double attention_scale_ =
      1;  // the default curves' scale when the device states none, x the calibration's
  double gemm_scale_ = 1;  // the calibration's
  double achieved_bandwidth_ = 0;
  double time_scale_ = 1;
  bool attention_default_ = false, bandwidth_default_ = false;
  double fa2_scale_ = 1;  // FlashAttention-2's rate over the device curve's, at most 1
};

double curve_at(const Curve& c, double x, double fallback);

}  // namespace ndsearch
