// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/gemm_efficiency.hpp"

#include <algorithm>

namespace ndsearch::plugins {

sdk::Curve gemm_efficiency_curve(double peak_flops_per_s, double best_fraction,
                                 double fixed_cost_s) {
  sdk::Curve curve;
  const double knee_flops = best_fraction * peak_flops_per_s * fixed_cost_s;
  for (double flops = 1e8; flops <= 1e13; flops *= 10) {
    curve.x.push_back(flops);
    curve.y.push_back(best_fraction * flops / (flops + knee_flops));
  }
  return curve;
}

sdk::Curve small_dim_efficiency_curve(double fraction_at_192) {
  constexpr double kMeasuredDim = 192;  // the skinny GEMM's n
  constexpr double kFullSpeedDim = 1024;
  constexpr double kFloor = 0.1;
  sdk::Curve curve;
  for (double dim : {64.0, 128.0, kMeasuredDim}) {
    curve.x.push_back(dim);
    curve.y.push_back(std::max(kFloor, 1 - (1 - fraction_at_192) * kMeasuredDim / dim));
  }
  curve.x.push_back(kFullSpeedDim);
  curve.y.push_back(1.0);
  return curve;
}

}  // namespace ndsearch::plugins
