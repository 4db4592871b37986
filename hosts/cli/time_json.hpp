// SPDX-License-Identifier: Apache-2.0
// time_json.hpp: a time estimate's parts as eval, search and explain print
// them in JSON: {forward, backward, ..., bubble} in seconds (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include "core/time/time_model.hpp"

namespace ndsearch::cli {

nlohmann::json time_parts_json(const TimeParts& parts);

}  // namespace ndsearch::cli
