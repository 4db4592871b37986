// SPDX-License-Identifier: Apache-2.0
// search_verb.hpp: `ndsearch search CONFIG -A DEVICE -d N -b GBS`: every
// strategy enumerated, checked, priced and ranked (DESIGN §4, §8).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/hardware/machine.hpp"
#include "core/search/search.hpp"
#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

// The flags that shape a search's space, shared by search and explain.
struct SpaceFlags {
  std::string dimensions;         // -l
  std::vector<std::string> only;  // --only
  unsigned threads = 0;           // -j (0: every core)
};

// Adds -l, --only and -j to `verb`.
void add_space_flags(CLI::App& verb, SpaceFlags& flags);

// The search of `model` on `machine` the flags describe, its budget from -M
// and --reserve-mem; keep and closest_misses are left at their defaults.
SearchOptions search_options(const Model& model, const Machine& machine, const SpaceFlags& space,
                             const std::optional<std::string>& max_memory,
                             const std::optional<std::string>& reserve_mem, const std::string& cp_algo);

void add_search_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
