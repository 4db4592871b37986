// SPDX-License-Identifier: Apache-2.0
// search_verb.hpp: `ndsearch search CONFIG -A DEVICE -d N -b GBS`: every
// strategy enumerated, checked, priced and ranked (DESIGN §4, §8).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include <ndsearch/core/planner.hpp>

#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

// Adds -l, --only and -j (the space of search and explain) to `verb`.
// -l, --only and -j into `space` (search, and explain to rank a strategy).
void add_space_flags(CLI::App& verb, SpaceSettings& space);

void add_search_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
