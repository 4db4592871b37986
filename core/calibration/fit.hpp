// SPDX-License-Identifier: Apache-2.0
// fit.hpp: the least-squares fit of a trainer's overheads (TrainerOverheads:
// three global factors per device and trainer) on published runs, with
// leave-one-out and leave-one-source-out errors.
//
// The procedure is least_squares.hpp's, the one a user's `compare --fit`
// runs too: minimise the sum over the rows of their step-time errors squared
// (RowResult::error, predicted step / the step the published metric implies
// - 1), over the three factors, each held >= 0.
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
