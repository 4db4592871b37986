// SPDX-License-Identifier: Apache-2.0
// gemm_efficiency.hpp: the default matmul efficiency curve of the shipped
// hardware plugins, for devices whose vendor publishes none.
#pragma once

#include <ndsearch/sdk/hardware.hpp>

namespace ndsearch::plugins {

// One GEMM of F FLOPs takes F / (e_max · peak) + t0 seconds: the best
// sustained fraction e_max of the dense peak (the measured maximum achievable
// matmul FLOP/s of the device), plus a fixed launch and tail cost t0. So
//   efficiency(F) = e_max · F / (F + e_max · peak · t0),
// sampled at 1e8 … 1e13 FLOPs (one point per decade); the host interpolates
// linearly between points and holds the ends.
sdk::Curve gemm_efficiency_curve(double peak_flops_per_s, double best_fraction,
                                 double fixed_cost_s);

// The multiplier of a thin GEMM (ABI 1.1 matmul_small_dim_efficiency) over its
// smaller output dimension min(m, n), from one measured point: a GEMM whose
// output is 192 wide reaches `fraction_at_192` of what its roofline allows
// (the larger of its time at the large-size plateau and its HBM traffic at
// the achieved bandwidth; the skinny 802816×192×768 cuBLASLt row of Azure/
// AI-benchmarking-guide, reference/microbenchmarks.md §1b). Below 192 the
// loss grows as the tiles (128-256 wide) are filled less: 1 - (1 - f)·192/d,
// at least 0.1; from 1024 up it is 1, since the best shapes of the
// maximum-achievable-matmul search include 1024-wide operands at full speed
// (B300, §1a). A short k is no such loss: it lowers the arithmetic
// intensity, which the host's roofline counts. Points: x = 64, 128, 192, 1024.
sdk::Curve small_dim_efficiency_curve(double fraction_at_192);

}  // namespace ndsearch::plugins
