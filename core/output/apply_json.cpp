// SPDX-License-Identifier: Apache-2.0
#include "core/output/apply_json.hpp"

#include "core/model/model_json.hpp"
#include "core/output/schema_version.hpp"
#include "core/strategy/strategy.hpp"

namespace ndsearch {

nlohmann::json written_config_json(const ConfigWrite& w, const Model& model) {
  nlohmann::json changes = nlohmann::json::array(), fragments = nlohmann::json::array();
  for (const DiffLine& d : w.changes)
    changes.push_back({{"kind", std::string(1, d.kind)}, {"line", d.line}, {"text", d.text}});
  for (const ConfigFragment& f : w.fragments)
    fragments.push_back(
        {{"parser", f.parser}, {"format", f.format}, {"text", f.text}, {"refused", f.refused}});
  return {{"schema_version", kSchemaVersion},
          {"config", model.file},
          {"parser", w.parser},
          {"strategy", strategy_json(w.strategy)},
          {"strategy_text", strategy_text(w.strategy)},
          {"key_changes", changes_from_config(model, w.strategy)},
          {"text", w.text},
          {"changes", changes},
          {"fragments", fragments}};
}

}  // namespace ndsearch
