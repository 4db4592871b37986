// SPDX-License-Identifier: Apache-2.0
// eval_verb.hpp: `ndsearch eval CONFIG -A DEVICE -d N --strategy ...`: one
// strategy checked and priced (memory per pipeline rank, against the budget).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "core/hardware/machine.hpp"
#include "core/model/model.hpp"
#include "core/plugins/registry.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

// What eval (and explain) price: the strategy and the settings beside it.
struct EvalArgs {
  ModelFlags model;
  std::string device;
  uint64_t devices = 0;
  std::string strategy;
  std::optional<std::string> max_memory, reserve_mem;
  bool layers_from_config = false;
  bool swap_optimizer = false;
  std::string cp_algo;
  std::optional<int> cp_ulysses;
  std::string format = "table";
};

// The eval JSON of docs/cli.md for args.strategy (with "strategy_text" added,
// which the printed JSON drops). Throws UserError as eval does.
nlohmann::json eval_json(const PluginRegistry& registry, Model& model, const Machine& machine, const EvalArgs& args);
// The plugin options the eval flags add (--swap-optimizer, --cp-ulysses).
PluginFlags eval_plugin_flags(const PluginFlags& base, const EvalArgs& args);
// The eval table of one eval_json.
void print_eval_table(const nlohmann::json& j);
// Prints E-STRATEGY-REFUSED for a refused strategy and returns its exit code (0 when valid).
int report_refusal(const nlohmann::json& j);

void add_eval_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
