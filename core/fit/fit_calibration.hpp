// SPDX-License-Identifier: Apache-2.0
// fit_calibration.hpp: `compare --fit`: a calibration (core/price/time/
// calibration.hpp) fitted on a user's measured runs with the one
// least-squares procedure (core/support/least_squares.hpp), with the
// error before and after and leave-one-out errors.
//
// Which factors it fits (docs/cli.md, "Calibration"): with n runs at most
// n - 1, taken in the priority order of calibration_factors(); a factor the
// fit pins at a bound that is its neutral value (an overhead at 0, pushed
// there by runs priced slow) is set aside and the next one taken in its
// place; a factor is
// left at its neutral value when the runs do not depend on it (moving it over
// a tenth of its range changes no run's predicted step by 0.1 %), or when,
// on these runs, its effect is (nearly) one of the factors already taken
// (less than a tenth of its sensitivity lies outside theirs), so the runs
// cannot tell the two apart.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/compare/compare_runs.hpp"
#include "core/compile/calibration.hpp"

namespace ndsearch {

struct FittedFactor {
  CalibrationFactor factor;
  double value = 0;
  bool fitted = false;
  std::string left_because;  // why it stayed neutral; empty when fitted
};

// The allocator's share fitted on the runs' measured peaks (compare's
// peak_gib / peak_bytes), by the same least squares on the peaks' relative
// errors as ndsearch-validate fits the shipped one on published peaks.
struct AllocatorShareFit {
  std::vector<int> lines;                    // the priced runs with a measured peak
  double shipped = 0;                        // the share the runs were priced with
  std::optional<double> value;               // fitted (and written) when it lowers the peaks' error
  std::string left_because;                  // why not, otherwise
  double mape_before = 0, mape_after = 0;    // of the peaks (NaN: no peak)
  std::vector<double> leave_one_out_errors;  // NaN with fewer than 3 peaks
  double leave_one_out_mape = 0;
};

struct CalibrationFit {
  std::filesystem::path file;  // where `compare --fit` wrote it (empty: not written)
  std::string device_id, trainer;
  std::vector<int> lines;  // of the runs fitted on (the comparison's priced runs), in file order
  std::vector<FittedFactor> factors;  // every factor, in the priority order
  Calibration calibration;
  double mape_before = 0, mape_after = 0;  // over the runs fitted on
  bool lowers_error = false;               // false: no factor lowers the MAPE; no file is written
  double rms_before = 0, rms_after = 0;    // of the relative errors
  // Each run's error when the fit leaves it out (its own choice of factors,
  // at most n - 2), and their mean absolute value; NaN with fewer than 3 runs.
  std::vector<double> leave_one_out_errors;
  double leave_one_out_mape = 0;
  AllocatorShareFit allocator;  // on the runs' measured peaks
  // Something to write: the time factors or the allocator share lower an error.
  bool writes() const { return lowers_error || allocator.value.has_value(); }
};

// Fits on `compared`'s priced runs (those in its metrics). Throws UserError
// E-FIT-RUNS when fewer than two runs were priced (one run determines no
// factor beside the others).
CalibrationFit fit_calibration(const PluginRegistry& registry, const DeviceCatalog& catalog,
                               const CompareRequest& request, const ComparedRuns& compared);

// `compare --fit FILE`: the fit, written to `file` as a calibration file
// (calibration_file.hpp) with the fit's report as its comment lines; a fit
// that lowers no error is returned unwritten (`file` empty). Throws
// as fit_calibration, and E-OUTPUT when `file` cannot be written.
CalibrationFit fit_calibration_file(const PluginRegistry& registry, const DeviceCatalog& catalog,
                                    const CompareRequest& request, const ComparedRuns& compared,
                                    const std::filesystem::path& file);

}  // namespace ndsearch
