// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/eval_verb.hpp"

#include <ndsearch/core/json_text.hpp>

#include <iostream>

#include "hosts/cli/calibration_flags.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/recompute_flag.hpp"
#include "hosts/cli/recompute_strategy_flags.hpp"
#include "hosts/cli/shared_flags.hpp"
#include "hosts/cli/terminal_width.hpp"

namespace ndsearch::cli {
namespace {

int evaluate(const PluginFlags& base_flags, const EvalArgs& args) {
  const Evaluation e = load_planner(eval_plugin_flags(base_flags, args)).evaluate(args.settings);
  if (args.format == "json")
    std::cout << json_text(e.to_json(), 2) << "\n";
  else
    e.write_text(std::cout, cli_text());
  if (e.refused) throw *e.refused;
  return kExitOk;
}

}  // namespace

void add_swap_optimizer_flag(CLI::App& verb, bool& swap) {
  verb.add_flag(
      "--swap-optimizer", swap,
      "Keep optimizer states and master weights on the host, copied in and out each step");
}

PluginFlags with_swap_optimizer(const PluginFlags& base, bool swap) {
  PluginFlags flags = base;
  if (swap) flags.verb_options["swap-optimizer"] = "1";
  return flags;
}

PluginFlags eval_plugin_flags(const PluginFlags& base, const EvalArgs& args) {
  PluginFlags flags = with_swap_optimizer(base, args.swap_optimizer);
  if (args.cp_ulysses) flags.verb_options["cp-ulysses"] = std::to_string(*args.cp_ulysses);
  return flags;
}

void add_pricing_flags(CLI::App& verb, EvalArgs& args) {
  add_memory_flags(verb, args.settings.max_memory, args.settings.reserve_mem);
  verb.add_flag("--layers-from-config", args.settings.layers_from_config,
                "Place layers as the config's stated per-stage counts or offsets whatever the "
                "strategy's pp and vpp (by default only at the config's own, elsewhere the "
                "trainer's split); E-PLACEMENT where they do not fit");
  add_swap_optimizer_flag(verb, args.swap_optimizer);
  verb.add_option("--cp-ulysses", args.cp_ulysses,
                  "hybrid CP: the Ulysses degree (default: the config's, else the largest the KV "
                  "heads allow)")
      ->check(CLI::Range(1, 1 << 16));
  add_cp_algo_flag(verb, args.settings.cp_algo);
  add_calibration_flags(verb, args.settings.calibration, args.settings.force_calibration);
}

void add_eval_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* verb =
      app.add_subcommand("eval", "Check and price one strategy: memory per pipeline rank");
  add_model_flags(*verb, args->settings.model);
  add_device_flag(*verb, args->settings.device)->required();
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices, "How many devices");
  add_strategy_flag(*verb, args->settings.strategy,
                    "unset keys take the config's, then the defaults (docs/cli.md, \"Strategy "
                    "keys\")");
  add_pricing_flags(*verb, *args);
  add_strategy_recompute_flag(*verb, args->settings.recompute_mode);
  add_recompute_strategy_flags(*verb, args->settings.recompute);
  verb->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  verb->callback([&run, &flags, args, devices] {
    run = [&flags, args, devices] {
      args->settings.devices = devices->value_or(0);  // 0: the strategy's product
      return evaluate(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
