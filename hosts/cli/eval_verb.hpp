// SPDX-License-Identifier: Apache-2.0
// eval_verb.hpp: `ndsearch eval CONFIG -A DEVICE -d N --strategy ...`: one
// strategy checked and priced (memory per pipeline rank, against the budget).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "core/evaluate/evaluate_strategy.hpp"
#include "hosts/cli/calibration_flags.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/plugin_options.hpp"
#include "hosts/cli/recompute_strategy_flags.hpp"

namespace ndsearch::cli {

// What eval (and explain) price: the strategy and the settings beside it.
struct EvalArgs {
  ModelFlags model;
  std::string device;
  EvaluationRequest request;  // devices: 0 for the strategy's product
  bool swap_optimizer = false;
  std::optional<int> cp_ulysses;
  CalibrationFlags calibration;  // applied to `request` once the device is known
  RecomputeChoiceSettings recompute_strategy;  // into request.recompute
  std::string format = "table";
};

// The plugin options the eval flags add (--swap-optimizer, --cp-ulysses).
PluginFlags eval_plugin_flags(const PluginFlags& base, const EvalArgs& args);
// --swap-optimizer into `swap` (eval, explain, compare and search), and the
// plugin option it sets when given.
void add_swap_optimizer_flag(CLI::App& verb, bool& swap);
PluginFlags with_swap_optimizer(const PluginFlags& base, bool swap);
// -M, --reserve-mem, --layers-from-config, --swap-optimizer, --cp-ulysses,
// --cp-algo, --calibration and --force into `args`: how eval, explain and compare price a strategy.
void add_pricing_flags(CLI::App& verb, EvalArgs& args);
// The eval table of one evaluation_json.
void print_eval_table(const nlohmann::json& j);
// `args.request` with the calibration of `args` on `device` (and it, for the document).
EvaluationRequest calibrated_request(const EvalArgs& args, const Device& device,
                                     std::optional<AppliedCalibration>& calibration);
// Prints E-STRATEGY-REFUSED for a refused strategy and returns its exit code (0 when valid).
int report_refusal(const StrategyEvaluation& evaluation);

void add_eval_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
