// SPDX-License-Identifier: Apache-2.0
// plugins_json.hpp: the loaded plugins and the skipped libraries as
// `plugins list --format json` prints them (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include "core/plugin_host/registry.hpp"

namespace ndsearch {

nlohmann::json plugins_json(const PluginRegistry& registry);

}  // namespace ndsearch
