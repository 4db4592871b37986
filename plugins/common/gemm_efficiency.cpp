// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/gemm_efficiency.hpp"

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

}  // namespace ndsearch::plugins
