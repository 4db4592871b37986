// SPDX-License-Identifier: Apache-2.0
// eval_verb.hpp: `ndsearch eval CONFIG -A DEVICE -d N --strategy ...`: one
// strategy checked and priced (memory per pipeline rank, against the budget).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

void add_eval_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
