// SPDX-License-Identifier: Apache-2.0
// fit_json.hpp: the fit of `compare --fit` in JSON (docs/cli.md,
// "Fitting a calibration"): {file, device, trainer, runs, factors [{key, words, value,
// neutral, lower, upper, fitted, left_because}], mape_before, mape_after,
// rms_before, rms_after, leave_one_out {mape, errors [{line, error}]},
// report [fit_report_lines (fit_report.hpp)]}; a value that cannot be computed (NaN) is null.
#pragma once

#include <nlohmann/json.hpp>

#include "core/fit/fit_calibration.hpp"

namespace ndsearch {

nlohmann::json fit_json(const CalibrationFit& fit);

}  // namespace ndsearch
