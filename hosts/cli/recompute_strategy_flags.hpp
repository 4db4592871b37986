// SPDX-License-Identifier: Apache-2.0
// recompute_strategy_flags.hpp: the flags that hand each candidate's
// recompute to a per-layer strategy (the reference's -ar and -ao):
// --auto-recompute (the "per-layer" strategy), --offload (the "offload"
// strategy: per layer, and the first layers of each rank to host),
// --recompute-strategy NAME (a strategy plugin of one's own), and the host
// link and memory offload needs.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "core/recompute/recompute_settings.hpp"

namespace ndsearch::cli {

struct RecomputeStrategyFlags {
  bool auto_recompute = false, offload = false;
  std::string strategy;
  std::optional<double> host_link_gibps, host_link_overlap;
  std::optional<std::string> host_memory;
};

void add_recompute_strategy_flags(CLI::App& verb, RecomputeStrategyFlags& flags);
// The settings the flags give. E-USAGE for a link bandwidth that is not > 0,
// an overlap outside [0, 1], a host memory that is not a size, or host-link
// flags without offload.
RecomputeSettings recompute_settings(const RecomputeStrategyFlags& flags);

}  // namespace ndsearch::cli
