// SPDX-License-Identifier: Apache-2.0
// recompute_flag.hpp: --recompute as the reference and the runtimes spell it
// (reference §8.1-8.2: `--recompute off selective full auto`). On search it
// restricts the recompute dimension (auto: all three uniform modes; the
// per-layer choice is --auto-recompute, issue 14); on eval and explain it is
// the strategy's recompute mode. The core reads both settings
// (core/search/space_shortcuts.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ndsearch::cli {

// Into SpaceSettings::recompute_modes.
void add_search_recompute_flag(CLI::App& verb, std::vector<std::string>& modes);
// Into EvaluateSettings::recompute_mode.
void add_strategy_recompute_flag(CLI::App& verb, std::string& mode);

}  // namespace ndsearch::cli
