// SPDX-License-Identifier: Apache-2.0
// strategy_json.hpp: a strategy as the verbs print it in JSON (DESIGN §8.8:
// degrees as integers, recompute and schedule as strings, unknown as null).
#pragma once

#include <ndsearch/nds_model.h>

#include <nlohmann/json.hpp>

namespace ndsearch {

nlohmann::json strategy_json(const nds_strategy& s);

}  // namespace ndsearch
