// SPDX-License-Identifier: Apache-2.0
// requests.hpp: from the public settings (planner.hpp) to the core's
// requests, one translation each, for every verb that shares them.
#pragma once

#include <ndsearch/core/planner.hpp>

#include <optional>

#include "core/input/parse_config.hpp"
#include "core/plugin_host/module_host.hpp"
#include "core/price/calibration_file.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/search/search_request.hpp"

namespace ndsearch {

ParseOptions parse_options(const ModelSettings& m);

// Whether a run's plugin options swap the optimizer states (the option
// "swap-optimizer" = "1", as the weights-and-optimizer pass reads it).
bool swaps_optimizer(const PluginOptions& options);

// The strategy of `e` (with its recompute mode) priced as `e` says, with
// `calibration`'s factors; `swap_optimizer`: the run's plugin options swap
// the optimizer states.
EvaluationRequest evaluation_request(const EvaluateSettings& e,
                                     const std::optional<AppliedCalibration>& calibration,
                                     bool swap_optimizer);

// The dimensions, restrictions (shortcuts included) and threads of `s`.
SearchSpaceRequest space_request(const SpaceSettings& s);

// E-STRATEGY-REFUSED for a refused evaluation: the strategy and the check's reason.
std::optional<UserError> refusal_error(const StrategyEvaluation& e);

}  // namespace ndsearch
