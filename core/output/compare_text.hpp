// SPDX-License-Identifier: Apache-2.0
// compare_text.hpp: a comparison as `compare` prints it: one line per run
// (measured, predicted, error, ranks, fits), its parts, what was adapted or
// left out, then the metrics and the fit; read from its document
// (compare_json.hpp).
#pragma once

#include <ndsearch/core/results.hpp>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ndsearch {

// `part_names`: the measured parts in the file's order.
void write_comparison_text(std::ostream& out, const nlohmann::json& document,
                           const std::vector<std::string>& part_names, const TextSettings& text);

}  // namespace ndsearch
