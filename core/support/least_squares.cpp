// SPDX-License-Identifier: Apache-2.0
#include "core/support/least_squares.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ndsearch {
namespace {

constexpr int kIterations = 12;
constexpr double kSmallestScale = 1.0 / 64;  // six halvings of a step
constexpr double kLeastGain = 1e-10;         // of the sum of squares, to go on

std::vector<double> clamped(const std::vector<FitFactor>& f, const std::vector<double>& x,
                            const Eigen::VectorXd& step, double scale) {
  std::vector<double> out(x.size());
  for (size_t j = 0; j < x.size(); ++j)
    out[j] = std::clamp(x[j] + scale * step(static_cast<Eigen::Index>(j)), f[j].lower, f[j].upper);
  return out;
}

// The residuals as the fit weighs them: NaN (a run not priced) as 0.
Eigen::VectorXd weighed(const std::vector<double>& residuals) {
  Eigen::VectorXd r(static_cast<Eigen::Index>(residuals.size()));
  for (size_t i = 0; i < residuals.size(); ++i)
    r(static_cast<Eigen::Index>(i)) = std::isnan(residuals[i]) ? 0.0 : residuals[i];
  return r;
}

}  // namespace

double rms_of(const std::vector<double>& residuals) {
  double sum = 0;
  int n = 0;
  for (double r : residuals)
    if (!std::isnan(r)) sum += r * r, ++n;
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : std::sqrt(sum / n);
}

LeastSquaresFit fit_least_squares(const std::vector<FitFactor>& factors,
                                  const Residuals& residuals) {
  const int k = static_cast<int>(factors.size());
  std::vector<double> x;
  for (const FitFactor& f : factors) x.push_back(std::clamp(f.start, f.lower, f.upper));
  LeastSquaresFit out;
  Eigen::VectorXd r = weighed(residuals(x));
  for (int iteration = 0; iteration < kIterations && k > 0; ++iteration) {
    out.iterations = iteration + 1;
    // Forward differences, backward where the forward one would leave the
    // bounds or sees nothing: on the hidden side of an overlap's max() a
    // slower link changes the step and a faster one does not.
    Eigen::MatrixXd jacobian(r.size(), k);
    for (int j = 0; j < k; ++j) {
      const size_t u = static_cast<size_t>(j);
      const double h = factors[u].step;
      auto slope = [&](double by) {
        std::vector<double> moved = x;
        moved[u] += by;
        return Eigen::VectorXd((weighed(residuals(moved)) - r) / by);
      };
      const bool forward_fits = x[u] + h <= factors[u].upper;
      jacobian.col(j) = forward_fits ? slope(h) : slope(-h);
      if (forward_fits && jacobian.col(j).isZero(0) && x[u] - h >= factors[u].lower)
        jacobian.col(j) = slope(-h);
    }
    // Active set: a factor on a bound whose step would leave it stays there.
    std::vector<bool> free(static_cast<size_t>(k), true);
    Eigen::VectorXd step = Eigen::VectorXd::Zero(k);
    for (int pass = 0; pass < k; ++pass) {
      std::vector<int> cols;
      for (int j = 0; j < k; ++j)
        if (free[static_cast<size_t>(j)]) cols.push_back(j);
      if (cols.empty()) break;
      Eigen::MatrixXd a(r.size(), static_cast<Eigen::Index>(cols.size()));
      for (size_t c = 0; c < cols.size(); ++c)
        a.col(static_cast<Eigen::Index>(c)) = jacobian.col(cols[c]);
      const Eigen::VectorXd solved = a.colPivHouseholderQr().solve(-r);
      step.setZero();
      bool held = false;
      for (size_t c = 0; c < cols.size(); ++c) {
        const int j = cols[c];
        const size_t u = static_cast<size_t>(j);
        step(j) = solved(static_cast<Eigen::Index>(c));
        if ((x[u] + step(j) < factors[u].lower && x[u] <= factors[u].lower) ||
            (x[u] + step(j) > factors[u].upper && x[u] >= factors[u].upper))
          free[u] = false, held = true;
      }
      if (!held) break;
    }
    // Accept only what lowers the sum of squares, halving the step otherwise.
    double scale = 1;
    std::vector<double> candidate = clamped(factors, x, step, scale);
    Eigen::VectorXd trial = weighed(residuals(candidate));
    while (trial.squaredNorm() > r.squaredNorm() && scale > kSmallestScale) {
      scale /= 2;
      candidate = clamped(factors, x, step, scale);
      trial = weighed(residuals(candidate));
    }
    if (trial.squaredNorm() >= r.squaredNorm()) break;
    const double gain = r.squaredNorm() - trial.squaredNorm();
    x = candidate;
    r = trial;
    if (gain < kLeastGain) break;
  }
  out.values = x;
  out.residuals = residuals(x);
  out.rms = rms_of(out.residuals);
  return out;
}

}  // namespace ndsearch
