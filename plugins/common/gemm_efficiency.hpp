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

}  // namespace ndsearch::plugins
