// SPDX-License-Identifier: Apache-2.0
// apply_json.hpp: a written config as the library returns it (Planner::apply,
// Python's ndsearch.apply): the text, the strategy, the keys and lines that
// changed, or, for a format with no trainer, each trainer's fragment.
#pragma once

#include <nlohmann/json.hpp>

#include "core/export/write_config.hpp"

namespace ndsearch {

// {schema_version, config, parser, strategy, strategy_text, key_changes: [text],
//  text, changes: [{kind: "-"|"+", line, text}], fragments: [{parser, format, text, refused}]}
nlohmann::json written_config_json(const ConfigWrite& w, const Model& model);

}  // namespace ndsearch
