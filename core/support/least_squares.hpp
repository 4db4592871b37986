// SPDX-License-Identifier: Apache-2.0
// least_squares.hpp: the one fitting procedure of ndsearch: bounded
// non-linear least squares over a few named factors, used on the published
// runs (the shipped trainer overheads, fit.hpp) and on a user's measured
// runs (`compare --fit`, core/fit/fit_calibration.hpp).
//
// It minimises the sum over the runs of their residuals squared (each the
// relative error of a run's step time, predicted / measured - 1) by
// Gauss-Newton with a forward-difference Jacobian: the step time is
// piecewise linear or smooth in every factor, so a few iterations
// converge. Each factor stays within [lower, upper]: one the step would
// push past a bound it sits on is held there and the rest are refitted (an
// active set); a step that does not lower the sum is halved, up to six
// times, and the fit stops when none does.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ndsearch {

struct FitFactor {
  std::string key;
  double start = 0, lower = 0, upper = 0;
  double step = 0;  // of the forward difference, about 1 % of a typical value
};

// The residual of every run for the factors' values (in FitFactor order).
// A NaN residual (a run that could not be priced) weighs nothing.
using Residuals = std::function<std::vector<double>(const std::vector<double>& values)>;

struct LeastSquaresFit {
  std::vector<double> values;     // in FitFactor order
  std::vector<double> residuals;  // at `values`, NaN kept
  double rms = 0;                 // over the residuals that are numbers
  int iterations = 0;
};

LeastSquaresFit fit_least_squares(const std::vector<FitFactor>& factors,
                                  const Residuals& residuals);

// The root mean square of the residuals that are numbers (NaN when none is).
double rms_of(const std::vector<double>& residuals);

}  // namespace ndsearch
