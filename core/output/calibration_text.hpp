// SPDX-License-Identifier: Apache-2.0
// calibration_text.hpp: the line a verb's text says of the user's calibration
// and the shipped trainer overheads it acts on top of, from the document's
// "calibration" and "trainer_overheads" (calibration_json.hpp).
#pragma once

#include <ndsearch/core/results.hpp>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace ndsearch {

// Empty when no calibration was applied.
std::string calibration_line(const nlohmann::json& calibration,
                             const nlohmann::json& trainer_overheads);
// The line, wrapped to the text's width; nothing when empty.
void write_calibration_line(std::ostream& out, const nlohmann::json& calibration,
                            const nlohmann::json& trainer_overheads, const TextSettings& text);

}  // namespace ndsearch
