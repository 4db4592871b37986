// SPDX-License-Identifier: Apache-2.0
// explain_text.hpp: an explanation as `explain` prints it: every check, the
// evaluation's table, the strategy's rank in the search and what beats it;
// read from its document (explain_json.hpp).
#pragma once

#include <ndsearch/core/results.hpp>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ndsearch {

// The lines the report shows above its table: what was priced, on what, and
// under which assumptions (the same the text's header says).
std::vector<std::string> explain_header_lines(const nlohmann::json& document,
                                              const TextSettings& text);

void write_explanation_text(std::ostream& out, const nlohmann::json& document,
                            const TextSettings& text);

}  // namespace ndsearch
