// SPDX-License-Identifier: Apache-2.0
// plugins_verb.hpp: `ndsearch plugins list` and `ndsearch plugins check`.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

// Adds the `plugins` verb to `app`; `run` is set to the action the command
// line chose and returns the exit code.
void add_plugins_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
