// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/explain_verb.hpp"

#include <ndsearch/core/json_text.hpp>

#include <iostream>

#include "hosts/cli/calibration_flags.hpp"
#include "hosts/cli/eval_verb.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/recompute_flag.hpp"
#include "hosts/cli/recompute_strategy_flags.hpp"
#include "hosts/cli/search_verb.hpp"
#include "hosts/cli/shared_flags.hpp"
#include "hosts/cli/terminal_width.hpp"

namespace ndsearch::cli {
namespace {

struct ExplainArgs {
  EvalArgs eval;
  ExplainSettings settings;  // its `evaluate` is eval.settings
};

int explain(const PluginFlags& base_flags, ExplainArgs& args) {
  args.settings.evaluate = args.eval.settings;
  const Explanation e =
      load_planner(eval_plugin_flags(base_flags, args.eval)).explain(args.settings);
  const bool json = args.eval.format == "json";
  for (const WrittenFile& f :
       e.files)  // beside the text; on stderr where stdout is one JSON document
    (json ? std::cerr : std::cout) << "  " << f.note << "\n";
  if (json)
    std::cout << json_text(e.to_json(), 2) << "\n";
  else
    e.write_text(std::cout, cli_text());
  if (e.refused) throw *e.refused;
  return kExitOk;
}

}  // namespace

void add_explain_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<ExplainArgs>();
  EvaluateSettings& e = args->eval.settings;
  CLI::App* verb =
      app.add_subcommand("explain",
                         "One strategy (the config's own by default): every check, memory per "
                         "stage, time; its rank in a search and what beats it");
  add_model_flags(*verb, e.model);
  add_device_flag(*verb, e.device)->required();
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices, "How many devices");
  add_strategy_flag(*verb, e.strategy,
                    "unset keys take the config's, then the defaults; none at all: the config's "
                    "own, ranked in the default search");
  add_memory_flags(*verb, e.max_memory, e.reserve_mem);
  add_cp_algo_flag(*verb, e.cp_algo);
  add_swap_optimizer_flag(*verb, args->eval.swap_optimizer);
  add_strategy_recompute_flag(*verb, e.recompute_mode);
  add_recompute_strategy_flags(*verb, e.recompute);
  add_calibration_flags(*verb, e.calibration, e.force_calibration);
  add_space_flags(*verb,
                  args->settings.space);  // with -l or --only: rank the strategy in that search
  verb->add_option(
      "--timeline", args->settings.timeline,
      "Write the step's pipeline schedule to this file as Chrome Trace Event JSON (Perfetto, "
      "chrome://tracing): a track per pipeline rank");
  verb->add_option("--report", args->settings.report,
                   "Write the strategy's HTML report to this file: its table, checks, the step's "
                   "parts, memory per stage, timeline and recompute potentials, as one page that "
                   "opens offline");
  verb->add_option("--format", args->eval.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  verb->callback([&run, &flags, args, devices] {
    run = [&flags, args, devices] {
      args->eval.settings.devices = devices->value_or(0);  // 0: the strategy's product
      return explain(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
