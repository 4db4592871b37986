// SPDX-License-Identifier: Apache-2.0
#include "core/calibration/fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace ndsearch {
namespace {

constexpr int kFactors = 3;
constexpr int kIterations = 12;
// Forward-difference steps, about 1 % of a typical value of each factor.
constexpr std::array<double, kFactors> kStep{1e-6, 1e-3, 0.01};
// Bounds no fit should reach: 1 s per layer, 10 s per step, kernels 3x slower.
constexpr std::array<double, kFactors> kUpper{1.0, 10.0, 2.0};

TrainerOverheads as_factors(const std::array<double, kFactors>& a) {
  return {a[0], a[1], a[2]};
}

Eigen::VectorXd residuals(const std::vector<size_t>& rows, const PriceRow& price,
                          const TrainerOverheads& f, std::vector<RowResult>* results = nullptr) {
  Eigen::VectorXd r(static_cast<Eigen::Index>(rows.size()));
  if (results) results->clear();
  for (size_t i = 0; i < rows.size(); ++i) {
    RowResult one = price(rows[i], f);
    // A row no candidate prices (NaN) weighs nothing.
    r(static_cast<Eigen::Index>(i)) = std::isnan(one.error) ? 0 : one.error;
    if (results) results->push_back(std::move(one));
  }
  return r;
}

}  // namespace

FitOutcome fit_overheads(const std::vector<size_t>& rows, const PriceRow& price) {
  std::array<double, kFactors> x{0, 0, 0};
  FitOutcome out;
  // Fewer rows than factors determine nothing: no fit (the factors stay 0).
  if (rows.size() < kFactors) {
    for (size_t r : rows) out.results.push_back(price(r, out.factors));
    out.rms_error = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  Eigen::VectorXd r = residuals(rows, price, as_factors(x));
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    Eigen::MatrixXd jacobian(r.size(), kFactors);
    for (int j = 0; j < kFactors; ++j) {
      std::array<double, kFactors> moved = x;
      moved[j] += kStep[j];
      jacobian.col(j) = (residuals(rows, price, as_factors(moved)) - r) / kStep[j];
    }
    // Active set: factors at a bound whose step would leave it stay fixed.
    std::array<bool, kFactors> free{true, true, true};
    Eigen::VectorXd step = Eigen::VectorXd::Zero(kFactors);
    for (int pass = 0; pass < kFactors; ++pass) {
      std::vector<int> cols;
      for (int j = 0; j < kFactors; ++j)
        if (free[j]) cols.push_back(j);
      if (cols.empty()) break;
      Eigen::MatrixXd a(r.size(), static_cast<Eigen::Index>(cols.size()));
      for (size_t k = 0; k < cols.size(); ++k)
        a.col(static_cast<Eigen::Index>(k)) = jacobian.col(cols[k]);
      const Eigen::VectorXd solved = a.colPivHouseholderQr().solve(-r);
      step.setZero();
      bool clamped = false;
      for (size_t k = 0; k < cols.size(); ++k) {
        const int j = cols[k];
        step(j) = solved(static_cast<Eigen::Index>(k));
        if (x[j] + step(j) < 0 && x[j] <= 0) free[j] = false, clamped = true;
      }
      if (!clamped) break;
    }
    std::array<double, kFactors> next = x;
    for (int j = 0; j < kFactors; ++j) next[j] = std::clamp(x[j] + step(j), 0.0, kUpper[j]);
    const Eigen::VectorXd moved = residuals(rows, price, as_factors(next));
    // Accept only what lowers the sum of squares (halving the step otherwise).
    double scale = 1;
    Eigen::VectorXd trial = moved;
    std::array<double, kFactors> candidate = next;
    while (trial.squaredNorm() > r.squaredNorm() && scale > 1.0 / 64) {
      scale /= 2;
      for (int j = 0; j < kFactors; ++j)
        candidate[j] = std::clamp(x[j] + scale * step(j), 0.0, kUpper[j]);
      trial = residuals(rows, price, as_factors(candidate));
    }
    if (trial.squaredNorm() >= r.squaredNorm()) break;
    const double gain = r.squaredNorm() - trial.squaredNorm();
    x = candidate;
    r = trial;
    if (gain < 1e-10) break;
  }
  out.factors = as_factors(x);
  r = residuals(rows, price, out.factors, &out.results);
  out.rms_error = std::sqrt(r.squaredNorm() / static_cast<double>(r.size()));
  return out;
}

}  // namespace ndsearch
