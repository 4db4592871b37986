// SPDX-License-Identifier: Apache-2.0
#include "core/fit/fit_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ndsearch {
namespace {

std::string percent(double value) {
  return std::isfinite(value) ? fmt::format("{:.2f} %", 100 * value) : std::string("n/a");
}

}  // namespace

std::vector<std::string> fit_report_lines(const CalibrationFit& fit) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format(
      "fitted on {} runs on {} ({} trainer): MAPE {} before, {} after; leave-one-out {}",
      fit.lines.size(), fit.device_id, fit.trainer, percent(fit.mape_before),
      percent(fit.mape_after), percent(fit.leave_one_out_mape)));
  if (!fit.writes())
    lines.push_back(
        "no calibration written: no factor lowers these runs' error; the shipped model stays");
  else if (!fit.lowers_error)
    lines.push_back(
        "no time factor lowers these runs' step-time error: the time model stays the shipped one");
  for (const FittedFactor& f : fit.factors)
    lines.push_back(f.fitted
                        ? fmt::format("{} = {:.6g} (fitted, bounds [{:g}, {:g}]): {}", f.factor.key,
                                      f.value, f.factor.lower, f.factor.upper, f.factor.words)
                        : fmt::format("{} = {:g} (left neutral: {}): {}", f.factor.key, f.value,
                                      f.left_because, f.factor.words));
  const AllocatorShareFit& a = fit.allocator;
  if (a.value)
    lines.push_back(
        fmt::format("allocator_fraction = {:.6g} (fitted on the {} measured peaks, the shipped "
                    "{:.3g}): peak MAPE {} "
                    "before, {} after; leave-one-out {}",
                    *a.value, a.lines.size(), a.shipped, percent(a.mape_before),
                    percent(a.mape_after), percent(a.leave_one_out_mape)));
  else
    lines.push_back(fmt::format("allocator_fraction left at the shipped {:.3g}: {}", a.shipped,
                                a.left_because));
  return lines;
}

}  // namespace ndsearch
