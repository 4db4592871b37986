// SPDX-License-Identifier: Apache-2.0
// fit.hpp: the least-squares fit of a trainer's overheads (TrainerOverheads:
// a few global factors per device and trainer) on published runs, with
// leave-one-out and leave-one-source-out errors.
//
// The procedure is least_squares.hpp's, the one a user's `compare --fit`
// runs too: minimise the sum over the rows of their step-time errors squared
// (RowResult::error, predicted step / the step the published metric implies
// - 1), over the factors the rows determine, each held >= 0.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/validation/validation.hpp"

namespace ndsearch {

// Prices row i with the given factors (a RowPricer's price, usually).
using PriceRow = std::function<RowResult(size_t row, const TrainerOverheads& factors)>;

// Which factors a fit frees; the others keep their values in `held`.
struct FitPlan {
  TrainerOverheads held;
  bool dense = true;  // layer_s, step_s, kernel_slowdown: every row informs them
  bool moe = false;   // moe_expert_s: only rows with MoE layers inform it
};

struct FitOutcome {
  TrainerOverheads factors;
  std::vector<RowResult> results;  // of the rows fitted on, priced with `factors`
  double rms_error = 0;
};

// Fits the plan's free factors on `rows` (indices for `price`); fewer rows
// than free factors are no fit (the held values, rms NaN). Rows whose error
// is NaN (no candidate) weigh nothing.
FitOutcome fit_overheads(const std::vector<size_t>& rows, const PriceRow& price,
                         const FitPlan& plan = {});

// The fit of one device and trainer, in two stages so that MoE rows do not
// move what dense rows determine: the three dense factors on the rows
// without MoE layers where at least three determine them (else held at
// `fallback`'s, the reference device's fit), then the MoE factor on the
// rows with MoE layers (`moe(row)`), the dense ones held (0 without any).
FitOutcome fit_in_stages(const std::vector<size_t>& rows, const std::function<bool(size_t)>& moe,
                         const PriceRow& price, const TrainerOverheads& fallback);

}  // namespace ndsearch
