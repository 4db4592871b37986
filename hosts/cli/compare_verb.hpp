// SPDX-License-Identifier: Apache-2.0
// compare_verb.hpp: `ndsearch compare CONFIG --measured RUNS.csv -A DEVICE`:
// every measured run priced as `eval` prices it, and how far off we are.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

void add_compare_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
