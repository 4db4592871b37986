// SPDX-License-Identifier: Apache-2.0
// plugin_settings.hpp: from the public PluginSettings to the registry's
// PluginSearch (the search order, options, limits of docs/cli.md).
#pragma once

#include <ndsearch/core/planner.hpp>

#include "core/plugin_host/registry.hpp"

namespace ndsearch {

PluginSearch plugin_search(const PluginSettings& settings);

}  // namespace ndsearch
