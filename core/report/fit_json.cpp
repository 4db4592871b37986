// SPDX-License-Identifier: Apache-2.0
#include "core/report/fit_json.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/report/compare_json.hpp"

namespace ndsearch {
namespace {

std::string percent(double value) {
  return std::isfinite(value) ? fmt::format("{:.2f} %", 100 * value) : std::string("n/a");
}

nlohmann::json allocator_json(const AllocatorShareFit& a) {
  nlohmann::json errors = nlohmann::json::array();
  for (size_t i = 0; i < a.lines.size(); ++i)
    errors.push_back({{"line", a.lines[i]}, {"error", number_or_null(a.leave_one_out_errors[i])}});
  return {{"runs", a.lines.size()},
          {"shipped", a.shipped},
          {"value", a.value ? nlohmann::json(*a.value) : nlohmann::json(nullptr)},
          {"left_because", a.value ? nlohmann::json(nullptr) : nlohmann::json(a.left_because)},
          {"mape_before", number_or_null(a.mape_before)},
          {"mape_after", number_or_null(a.mape_after)},
          {"leave_one_out",
           {{"mape", number_or_null(a.leave_one_out_mape)}, {"errors", std::move(errors)}}}};
}

}  // namespace

nlohmann::json fit_json(const CalibrationFit& fit) {
  nlohmann::json factors = nlohmann::json::array();
  for (const FittedFactor& f : fit.factors)
    factors.push_back(
        {{"key", f.factor.key},
         {"words", f.factor.words},
         {"value", f.value},
         {"neutral", f.factor.neutral},
         {"lower", f.factor.lower},
         {"upper", f.factor.upper},
         {"fitted", f.fitted},
         {"left_because", f.fitted ? nlohmann::json(nullptr) : nlohmann::json(f.left_because)}});
  nlohmann::json errors = nlohmann::json::array();
  for (size_t i = 0; i < fit.lines.size(); ++i)
    errors.push_back(
        {{"line", fit.lines[i]}, {"error", number_or_null(fit.leave_one_out_errors[i])}});
  return {{"file", fit.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(fit.file.string())},
          {"device", fit.device_id},
          {"trainer", fit.trainer},
          {"runs", fit.lines.size()},
          {"factors", std::move(factors)},
          {"lowers_error", fit.lowers_error},
          {"mape_before", number_or_null(fit.mape_before)},
          {"mape_after", number_or_null(fit.mape_after)},
          {"rms_before", number_or_null(fit.rms_before)},
          {"rms_after", number_or_null(fit.rms_after)},
          {"leave_one_out",
           {{"mape", number_or_null(fit.leave_one_out_mape)}, {"errors", std::move(errors)}}},
          {"allocator", allocator_json(fit.allocator)},
          {"report", fit_report_lines(fit)}};
}

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
