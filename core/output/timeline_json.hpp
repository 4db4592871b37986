// SPDX-License-Identifier: Apache-2.0
// timeline_json.hpp: one priced strategy's step as Chrome Trace Event JSON
// (`explain --timeline`; opens in Perfetto or chrome://tracing): a track per
// pipeline rank with a slice for each forward, recompute, backward and
// exposed send of each micro-batch and chunk, as the schedule runs them
// (core/price/time/pipeline_schedule.hpp) with the seconds the time model prices,
// then the step's exposed DP, optimizer and overhead work on every rank.
// Times in microseconds, as the format has them.
#pragma once

#include <nlohmann/json.hpp>

#include "core/price/evaluate_strategy.hpp"

namespace ndsearch {

// Needs a priced evaluation (valid, with its time). Throws UserError E-USAGE
// for a schedule the simulator does not run (zb-v: priced in closed form).
nlohmann::json timeline_json(const StrategyEvaluation& evaluation);

}  // namespace ndsearch
