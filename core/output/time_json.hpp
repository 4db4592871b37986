// SPDX-License-Identifier: Apache-2.0
// time_json.hpp: a time estimate as eval, search and explain print it in
// JSON: {step_s, parts: {forward, ..., overhead}, hidden: {tp, cp, ep, dp,
// pp}} in seconds (docs/cli.md); parts are exposed and sum to step_s.
#pragma once

#include <nlohmann/json.hpp>

#include "core/price/time/time_model.hpp"

namespace ndsearch {

nlohmann::json time_parts_json(const TimeParts& parts);
nlohmann::json time_json(const TimeEstimate& estimate);

}  // namespace ndsearch
