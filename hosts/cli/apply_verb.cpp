// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/apply_verb.hpp"

#include <iostream>
#include <memory>

#include "hosts/cli/model_options.hpp"

namespace ndsearch::cli {
namespace {

// Without -o the written text goes to stdout and what changed to stderr;
// with it, what was written and what changed go to stdout.
int apply(const PluginFlags& flags, const ApplySettings& settings) {
  const WrittenConfig w = load_planner(flags).apply(settings);
  if (w.file) {
    std::cout << w.file->note << "\n";
    if (!w.fragments) w.write_changes(std::cout);
  } else {
    std::cout << w.text;
    if (!w.fragments) w.write_changes(std::cerr);
  }
  return kExitOk;
}

}  // namespace

void add_apply_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto settings = std::make_shared<ApplySettings>();
  CLI::App* verb = app.add_subcommand(
      "apply",
      "Write a strategy into the config: the same file with the strategy's keys changed or added");
  add_model_flags(*verb, settings->model);
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices,
                   "How many devices (default: the config's, or the strategy's product)");
  verb->add_option("--strategy", settings->strategy,
                   "The strategy to write, e.g. \"tp=4,pp=2,recompute=full\"; keys left out keep "
                   "the config's")
      ->required();
  verb->add_option(
      "-o,--output", settings->output,
      "Write the new config to this file (default: stdout, with the changed lines on stderr)");
  verb->callback([&run, &flags, settings, devices] {
    run = [&flags, settings, devices] {
      settings->devices = devices->value_or(0);
      return apply(flags, *settings);
    };
  });
}

}  // namespace ndsearch::cli
