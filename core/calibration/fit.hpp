// SPDX-License-Identifier: Apache-2.0
// fit.hpp: the least-squares fit of a trainer's overheads (TrainerOverheads:
// three global factors per device and trainer) on published runs, with
// leave-one-out and leave-one-source-out errors.
//
// The procedure: minimise the sum over the rows of (predicted / published -
// 1)^2, the relative error of each row's metric, over the three factors,
// each held >= 0, by Gauss-Newton with a forward-
// difference Jacobian (the step time is piecewise linear in the factors, so
// it converges in a few iterations); a factor that the step would make
// negative is held at its bound and the rest refitted.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/calibration/validation.hpp"

namespace ndsearch {

// Prices row i with the given factors (a RowPricer's price, usually).
using PriceRow = std::function<RowResult(size_t row, const TrainerOverheads& factors)>;

struct FitOutcome {
  TrainerOverheads factors;
  std::vector<RowResult> results;  // of the rows fitted on, priced with `factors`
  double rms_error = 0;
};

// Fits on `rows` (indices for `price`); fewer rows than the three factors
// are no fit (factors 0, rms NaN). Rows whose error is NaN (no candidate)
// weigh nothing.
FitOutcome fit_overheads(const std::vector<size_t>& rows, const PriceRow& price);

}  // namespace ndsearch
