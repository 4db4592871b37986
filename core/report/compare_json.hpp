// SPDX-License-Identifier: Apache-2.0
// compare_json.hpp: the metrics of `ndsearch compare` in JSON (docs/cli.md,
// "Comparing with measured runs: metrics"): {mape, mean_error, pearson,
// spearman, top_k, top1_regret, parts: {NAME: {runs, pearson,
// mean_abs_error_s, mape, mape_runs}}}; a value that cannot be computed
// (NaN) is null.
#pragma once

#include <nlohmann/json.hpp>

#include "core/compare/metrics.hpp"

namespace ndsearch {

nlohmann::json metrics_json(const CompareMetrics& metrics);

}  // namespace ndsearch
