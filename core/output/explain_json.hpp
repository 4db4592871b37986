// SPDX-License-Identifier: Apache-2.0
// explain_json.hpp: an explanation as `explain --format json` prints it
// (docs/cli.md): the eval document with "checks" and, with a search space,
// "search" {fit, tested, rank, beaten_by | note}.
#pragma once

#include <nlohmann/json.hpp>

#include "core/analyses/explain_strategy.hpp"

namespace ndsearch {

nlohmann::json explanation_json(const StrategyExplanation& explanation);

}  // namespace ndsearch
