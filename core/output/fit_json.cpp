// SPDX-License-Identifier: Apache-2.0
#include "core/output/fit_json.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/fit/fit_report.hpp"
#include "core/output/compare_json.hpp"

namespace ndsearch {
namespace {

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

}  // namespace ndsearch
