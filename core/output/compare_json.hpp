// SPDX-License-Identifier: Apache-2.0
// compare_json.hpp: the metrics of `ndsearch compare` in JSON (docs/cli.md,
// "Comparing with measured runs: metrics"): {mape, mean_error, pearson,
// spearman, top_k, top1_regret, parts: {NAME: {runs, pearson,
// mean_abs_error_s, mape, mape_runs}}}; a value that cannot be computed
// (NaN) is null.
#pragma once

#include <nlohmann/json.hpp>

#include "core/compare/compare_runs.hpp"
#include "core/compare/metrics.hpp"

namespace ndsearch {

// JSON has no NaN: a value that cannot be computed is null (compare's and the fit's documents).
nlohmann::json number_or_null(double value);

nlohmann::json metrics_json(const CompareMetrics& metrics);

// The `compare --format json` document: schema_version, model, device,
// measured (the file), format, runs [{line, strategy, measured_s,
// predicted_s, error, measured_rank, predicted_rank, fits, refused (null or
// {id, reason}), parts {NAME: {measured_s, predicted_s}}}], skipped [{line,
// column, value, reason}] and metrics (metrics_json). A run left out of the
// metrics has null error and ranks.
nlohmann::json compare_json(const ComparedRuns& comparison);

}  // namespace ndsearch
