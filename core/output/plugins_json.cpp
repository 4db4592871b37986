// SPDX-License-Identifier: Apache-2.0
#include "core/output/plugins_json.hpp"

#include "core/output/schema_version.hpp"

namespace ndsearch {

nlohmann::json plugins_json(const PluginRegistry& registry) {
  nlohmann::json plugins = nlohmann::json::array();
  for (const auto& p : registry.plugins()) {
    plugins.push_back({{"id", p->id},
                       {"version", p->version},
                       {"description", p->description},
                       {"kinds", p->interfaces.ids()},
                       {"abi_major", p->abi_major},
                       {"abi_minor", p->abi_minor},
                       {"path", p->path.string()}});
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const SkippedPlugin& s : registry.skipped())
    skipped.push_back(
        {{"path", s.path.string()}, {"error_id", s.error_id}, {"message", s.message}});
  return {{"schema_version", kSchemaVersion}, {"plugins", plugins}, {"skipped", skipped}};
}

}  // namespace ndsearch
