// SPDX-License-Identifier: Apache-2.0
#include "core/fit/fit.hpp"

#include <array>
#include <cmath>
#include <limits>

#include "core/support/least_squares.hpp"

namespace ndsearch {
namespace {

// Each factor from 0 (no overhead) up to a bound no fit should reach: 1 s
// per layer, 10 s per step, kernels 3x slower, 1 s per expert and MoE layer;
// forward-difference steps about 1 % of a typical value of each.
const std::array<FitFactor, 3> kDenseFactors{{{"layer_s", 0, 0, 1.0, 1e-6},
                                              {"step_s", 0, 0, 10.0, 1e-3},
                                              {"kernel_slowdown", 0, 0, 2.0, 0.01}}};
const FitFactor kMoeFactor{"moe_expert_s", 0, 0, 1.0, 1e-5};

// The plan's free factors, in FitFactor order.
std::vector<FitFactor> free_factors(const FitPlan& plan) {
  std::vector<FitFactor> out;
  if (plan.dense) out.assign(kDenseFactors.begin(), kDenseFactors.end());
  if (plan.moe) out.push_back(kMoeFactor);
  return out;
}

TrainerOverheads with_values(const FitPlan& plan, const std::vector<double>& v) {
  TrainerOverheads f = plan.held;
  size_t i = 0;
  if (plan.dense) f.layer_s = v[i++], f.step_s = v[i++], f.kernel_slowdown = v[i++];
  if (plan.moe) f.moe_expert_s = v[i++];
  return f;
}

// The root mean square of the results' errors over every row, a row no
// candidate prices counting as 0; NaN without rows.
double rms_over_rows(const std::vector<RowResult>& results) {
  if (results.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (const RowResult& r : results) sum += std::isnan(r.error) ? 0 : r.error * r.error;
  return std::sqrt(sum / static_cast<double>(results.size()));
}

}  // namespace

FitOutcome fit_overheads(const std::vector<size_t>& rows, const PriceRow& price,
                         const FitPlan& plan) {
  FitOutcome out;
  out.factors = plan.held;
  const std::vector<FitFactor> factors = free_factors(plan);
  // Fewer rows than factors determine nothing: no fit (the held values).
  if (factors.empty() || rows.size() < factors.size()) {
    for (size_t r : rows) out.results.push_back(price(r, out.factors));
    out.rms_error = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  const Residuals residuals = [&](const std::vector<double>& values) {
    std::vector<double> r;
    for (size_t row : rows) r.push_back(price(row, with_values(plan, values)).error);
    return r;
  };
  const LeastSquaresFit fit = fit_least_squares(factors, residuals);
  out.factors = with_values(plan, fit.values);
  for (size_t r : rows) out.results.push_back(price(r, out.factors));
  out.rms_error = rms_over_rows(out.results);
  return out;
}

FitOutcome fit_in_stages(const std::vector<size_t>& rows, const std::function<bool(size_t)>& moe,
                         const PriceRow& price, const TrainerOverheads& fallback) {
  std::vector<size_t> dense_rows, moe_rows;
  for (size_t r : rows) (moe(r) ? moe_rows : dense_rows).push_back(r);
  TrainerOverheads factors = fallback;
  factors.moe_expert_s = 0;
  if (dense_rows.size() >= kDenseFactors.size())
    factors = fit_overheads(dense_rows, price, {factors, true, false}).factors;
  if (!moe_rows.empty()) factors = fit_overheads(moe_rows, price, {factors, false, true}).factors;
  FitOutcome out;
  out.factors = factors;
  for (size_t r : rows) out.results.push_back(price(r, factors));
  out.rms_error = rms_over_rows(out.results);
  return out;
}

}  // namespace ndsearch
