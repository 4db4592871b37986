// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/compare_verb.hpp"

#include <ndsearch/core/json_text.hpp>

#include <iostream>
#include <memory>
#include <string>

#include "hosts/cli/eval_verb.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/shared_flags.hpp"
#include "hosts/cli/terminal_width.hpp"

namespace ndsearch::cli {
namespace {

struct CompareArgs {
  EvalArgs eval;  // the model, device and pricing flags; the strategy comes from each run
  CompareSettings settings;  // its `evaluate` is eval.settings
};

int compare(const PluginFlags& base_flags, CompareArgs& args) {
  args.settings.evaluate = args.eval.settings;
  const Comparison c =
      load_planner(eval_plugin_flags(base_flags, args.eval)).compare(args.settings);
  const bool document = args.eval.format != "table";
  for (const WrittenFile& f : c.files)  // beside the text; on stderr where stdout is one document
    (document ? std::cerr : std::cout) << "  " << f.note << "\n";
  if (args.eval.format == "json")
    std::cout << json_text(c.to_json(), 2) << "\n";
  else if (args.eval.format == "csv")
    std::cout << c.csv;
  else
    c.write_text(std::cout, cli_text());
  if (c.none_priced) throw *c.none_priced;
  return kExitOk;
}

}  // namespace

void add_compare_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* verb = app.add_subcommand(
      "compare", "Price measured runs as eval does and report how far the estimates are from them");
  add_model_flags(*verb, args->eval.settings.model, false);  // none for a validation CSV
  verb->add_option("--measured", args->settings.measured,
                   "The measured runs: a CSV in the reference's simple or classified format, "
                   "ours, or a validation CSV (validation/*.csv: no CONFIG nor -A then)")
      ->required();
  add_device_flag(*verb, args->eval.settings.device, "not with a validation CSV");
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices, "How many devices, where a run does not say");
  add_pricing_flags(*verb, args->eval);
  verb->add_option("--host-link-gibps", args->eval.settings.recompute.host_link_gibps,
                   "Host link bandwidth per device and direction in GiB/s for --swap-optimizer's "
                   "copies, instead of 80 % of the device's");
  verb->add_option("--format", args->eval.format, "Output format (csv: one row per run)")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  verb->add_option("--fit", args->settings.fit,
                   "Fit a calibration on the runs and write it to FILE (apply it with "
                   "--calibration)");
  verb->add_option("-o,--output-dir", args->settings.output_dir,
                   "Also write the per-run CSV to DIR/compare_runs.csv (DIR is created)");
  verb->callback([&run, &flags, args, devices] {
    run = [&flags, args, devices] {
      args->eval.settings.devices = devices->value_or(0);  // 0: each run's strategy product
      return compare(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
