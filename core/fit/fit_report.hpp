// SPDX-License-Identifier: Apache-2.0
// fit_report.hpp: a user's fit (compare --fit) in words, one line each, for
// the calibration file's header, the table and the JSON's "report".
#pragma once

#include <string>
#include <vector>

#include "core/fit/fit_calibration.hpp"

namespace ndsearch {

// The runs, the error before and after, the leave-one-out error, and each
// factor with its bounds, fitted or why it was left neutral.
std::vector<std::string> fit_report_lines(const CalibrationFit& fit);

}  // namespace ndsearch
