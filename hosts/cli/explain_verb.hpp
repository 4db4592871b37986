// SPDX-License-Identifier: Apache-2.0
// explain_verb.hpp: `ndsearch explain CONFIG -A DEVICE --strategy ...`: one
// strategy's every check, its memory per stage against the budget and its time
// breakdown; with search flags (-l, --only) also its rank and what beats it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

void add_explain_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
