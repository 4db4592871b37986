// SPDX-License-Identifier: Apache-2.0
// hardware_verb.hpp: `ndsearch hardware [ID]`: the devices the loaded
// hardware plugins describe.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

void add_hardware_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
