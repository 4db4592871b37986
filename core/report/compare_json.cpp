// SPDX-License-Identifier: Apache-2.0
#include "core/report/compare_json.hpp"

#include <cmath>

namespace ndsearch {
namespace {

// JSON has no NaN: a metric that cannot be computed is null.
nlohmann::json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json metrics_json(const CompareMetrics& m) {
  nlohmann::json parts = nlohmann::json::object();
  for (const PartMetrics& p : m.parts)
    parts[p.name] = {{"runs", p.runs},
                     {"pearson", number_or_null(p.pearson)},
                     {"mean_abs_error_s", number_or_null(p.mean_abs_error_s)},
                     {"mape", number_or_null(p.mape)},
                     {"mape_runs", p.mape_runs}};
  return {{"mape", number_or_null(m.mape)},
          {"mean_error", number_or_null(m.mean_error)},
          {"pearson", number_or_null(m.pearson)},
          {"spearman", number_or_null(m.spearman)},
          {"top_k", m.top_k},
          {"top1_regret", number_or_null(m.top1_regret)},
          {"parts", parts}};
}

}  // namespace ndsearch
