// SPDX-License-Identifier: Apache-2.0
// eval_verb.hpp: `ndsearch eval CONFIG -A DEVICE -d N --strategy ...`: one
// strategy checked and priced (memory per pipeline rank, against the budget).
// The pricing flags here are shared by explain and compare.
#pragma once

#include <CLI/CLI.hpp>
#include <ndsearch/core/planner.hpp>

#include <functional>
#include <optional>
#include <string>

#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

// What eval (and explain and compare) price: the settings and the plugin
// options beside them.
struct EvalArgs {
  EvaluateSettings settings;  // devices: 0 for the strategy's product
  bool swap_optimizer = false;
  std::optional<int> cp_ulysses;
  std::string format = "table";
};

// The plugin options the eval flags add (--swap-optimizer, --cp-ulysses).
PluginFlags eval_plugin_flags(const PluginFlags& base, const EvalArgs& args);
// --swap-optimizer into `swap` (eval, explain, compare and search), and the
// plugin option it sets when given.
void add_swap_optimizer_flag(CLI::App& verb, bool& swap);
PluginFlags with_swap_optimizer(const PluginFlags& base, bool swap);
// -M, --reserve-mem, --layers-from-config, --swap-optimizer, --cp-ulysses,
// --cp-algo, --calibration and --force into `args`: how eval, explain and
// compare price a strategy.
void add_pricing_flags(CLI::App& verb, EvalArgs& args);

void add_eval_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
