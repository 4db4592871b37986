// SPDX-License-Identifier: Apache-2.0
// evaluation_json.hpp: a strategy's evaluation as `eval --format json`
// prints it (docs/cli.md), and the per-stage memory the search's rows list.
#pragma once

#include <nlohmann/json.hpp>

#include "core/evaluate/evaluate_strategy.hpp"

namespace ndsearch {

// The eval document: schema_version, model, strategy and its sources, valid
// and refusal, memory and time when priced, warnings.
nlohmann::json evaluation_json(const StrategyEvaluation& evaluation);

// [{stage, layers, params_bytes, ..., other_bytes, peak_bytes}] by pipeline
// rank, null when the evaluation was refused.
nlohmann::json stages_json(const StrategyEvaluation& evaluation);

}  // namespace ndsearch
