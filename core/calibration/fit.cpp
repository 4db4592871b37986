// SPDX-License-Identifier: Apache-2.0
#include "core/calibration/fit.hpp"

#include <array>
#include <cmath>
#include <limits>

#include "core/calibration/least_squares.hpp"

namespace ndsearch {
namespace {

// The three factors, each from 0 (no overhead) up to a bound no fit should
// reach: 1 s per layer, 10 s per step, kernels 3x slower; forward-difference
// steps about 1 % of a typical value of each.
const std::array<FitFactor, 3> kOverheadFactors{{{"layer_s", 0, 0, 1.0, 1e-6},
                                                 {"step_s", 0, 0, 10.0, 1e-3},
                                                 {"kernel_slowdown", 0, 0, 2.0, 0.01}}};

TrainerOverheads as_overheads(const std::vector<double>& v) {
  return {v[0], v[1], v[2]};
}

}  // namespace

FitOutcome fit_overheads(const std::vector<size_t>& rows, const PriceRow& price) {
  FitOutcome out;
  // Fewer rows than factors determine nothing: no fit (the factors stay 0).
  if (rows.size() < kOverheadFactors.size()) {
    for (size_t r : rows) out.results.push_back(price(r, out.factors));
    out.rms_error = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  const Residuals residuals = [&](const std::vector<double>& values) {
    std::vector<double> r;
    for (size_t row : rows) r.push_back(price(row, as_overheads(values)).error);
    return r;
  };
  const LeastSquaresFit fit = fit_least_squares(
      std::vector<FitFactor>(kOverheadFactors.begin(), kOverheadFactors.end()), residuals);
  out.factors = as_overheads(fit.values);
  for (size_t r : rows) out.results.push_back(price(r, out.factors));
  // Over every row, a row no candidate prices counting as 0.
  double sum = 0;
  for (double r : fit.residuals) sum += std::isnan(r) ? 0 : r * r;
  out.rms_error = std::sqrt(sum / static_cast<double>(rows.size()));
  return out;
}

}  // namespace ndsearch
