// SPDX-License-Identifier: Apache-2.0
// test_least_squares.cpp: the one fitting procedure (core/support/
// least_squares.hpp) on residuals whose minimum is known in closed form: the
// relative error of a line a·x + b against y = 2x + 3, free, with a held at
// a bound, and with a run that could not be priced (NaN).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/support/least_squares.hpp"

using namespace ndsearch;

namespace {

const std::vector<double> kX{1, 2, 4, 8};

double truth(double x) {
  return 2 * x + 3;
}

Residuals line_against_truth(std::vector<double> x) {
  return [x](const std::vector<double>& v) {
    std::vector<double> r;
    for (double xi : x) r.push_back((v[0] * xi + v[1]) / truth(xi) - 1);
    return r;
  };
}

}  // namespace

TEST_CASE("least squares recovers the factors of noise-free residuals") {
  const std::vector<FitFactor> factors{{"a", 1, 0, 10, 1e-3}, {"b", 0, 0, 10, 1e-3}};
  const LeastSquaresFit fit = fit_least_squares(factors, line_against_truth(kX));
  CHECK(fit.values[0] == Approx(2).epsilon(1e-9));
  CHECK(fit.values[1] == Approx(3).epsilon(1e-9));
  CHECK(fit.rms < 1e-9);
}

TEST_CASE("least squares holds a factor at its bound and refits the rest") {
  // a <= 1.5: the optimum has a = 1.5 and b minimising sum((1.5 x + b) / y - 1)^2,
  // whose derivative in b vanishes at b = sum((1 - 1.5 x / y) / y) / sum(1 / y^2).
  const std::vector<FitFactor> factors{{"a", 1, 0, 1.5, 1e-3}, {"b", 0, 0, 10, 1e-3}};
  const LeastSquaresFit fit = fit_least_squares(factors, line_against_truth(kX));
  double num = 0, den = 0;
  for (double x : kX) {
    const double y = truth(x);
    num += (1 - 1.5 * x / y) / y;
    den += 1 / (y * y);
  }
  CHECK(fit.values[0] == 1.5);
  CHECK(fit.values[1] == Approx(num / den).epsilon(1e-6));
  CHECK(fit.rms > 0.01);  // a line held below its slope cannot match
}

TEST_CASE("a run that could not be priced weighs nothing in the fit") {
  const Residuals with_nan = [](const std::vector<double>& v) {
    std::vector<double> r = line_against_truth(kX)(v);
    r.push_back(std::numeric_limits<double>::quiet_NaN());
    return r;
  };
  const std::vector<FitFactor> factors{{"a", 1, 0, 10, 1e-3}, {"b", 0, 0, 10, 1e-3}};
  const LeastSquaresFit fit = fit_least_squares(factors, with_nan);
  CHECK(fit.values[0] == Approx(2).epsilon(1e-9));
  CHECK(fit.values[1] == Approx(3).epsilon(1e-9));
  CHECK(std::isnan(fit.residuals.back()));
  CHECK(fit.rms < 1e-9);  // over the runs that are numbers
  CHECK(std::isnan(rms_of({std::numeric_limits<double>::quiet_NaN()})));
}
