// SPDX-License-Identifier: Apache-2.0
// evaluation_text.hpp: an evaluation as `eval` prints it: the strategy, the
// memory per pipeline stage against the budget, the step's parts, MFU and
// the assumptions; read from its document (evaluation_json.hpp), so that
// every host's text says what its JSON says.
#pragma once

#include <ndsearch/core/results.hpp>
#include <nlohmann/json.hpp>

#include <ostream>

namespace ndsearch {

void write_evaluation_text(std::ostream& out, const nlohmann::json& document,
                           const TextSettings& text);

}  // namespace ndsearch
