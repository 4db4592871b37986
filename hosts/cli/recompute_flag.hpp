// SPDX-License-Identifier: Apache-2.0
// recompute_flag.hpp: --recompute as the reference and the runtimes spell it
// (reference §8.1-8.2: `--recompute off selective full auto`). On search it
// restricts the recompute dimension (auto: all three uniform modes; the
// per-layer choice is --auto-recompute, issue 14); on eval and explain it is
// the strategy's recompute=. Both become the settings the core already
// reads (an --only item, the strategy text).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ndsearch::cli {

void add_search_recompute_flag(CLI::App& verb, std::vector<std::string>& modes);
// Appends "recompute=..." to `only`; E-USAGE for an unknown mode, or when
// `only` restricts recompute too.
void apply_search_recompute(const std::vector<std::string>& modes, std::vector<std::string>& only);

void add_strategy_recompute_flag(CLI::App& verb, std::string& mode);
// Appends "recompute=MODE" to `strategy`; E-USAGE for an unknown mode,
// `auto` (one strategy has one mode), or a strategy that states recompute.
void apply_strategy_recompute(const std::string& mode, std::string& strategy);

}  // namespace ndsearch::cli
