// SPDX-License-Identifier: Apache-2.0
// recompute_strategy_flags.hpp: the flags that hand each candidate's
// recompute to a per-layer strategy (the reference's -ar and -ao):
// --auto-recompute (the "per-layer" strategy), --offload (the "offload"
// strategy: per layer, and the first layers of each rank to host),
// --recompute-strategy NAME (a strategy plugin of one's own), and the host
// link and memory offload needs. The core reads and checks them
// (recompute_settings_of).
#pragma once

#include <CLI/CLI.hpp>
#include <ndsearch/core/planner.hpp>

namespace ndsearch::cli {

void add_recompute_strategy_flags(CLI::App& verb, RecomputeChoiceSettings& flags);

}  // namespace ndsearch::cli
