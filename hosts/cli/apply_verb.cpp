// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/apply_verb.hpp"

#include <fmt/format.h>

#include <iostream>

#include "core/apply/priced_layers.hpp"
#include "core/strategy/strategy.hpp"
#include "hosts/cli/output_files.hpp"

namespace ndsearch::cli {
namespace {

struct ApplyArgs {
  ModelFlags model;
  std::string strategy;
  std::string out;
};

void print_changes(std::ostream& to, const WrittenConfig& w, const Model& model) {
  const std::vector<std::string> keys = changes_from_config(model, w.strategy);
  to << fmt::format("strategy: {}\n", strategy_text(w.strategy));
  to << fmt::format("changes from the config: {}\n",
                    keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", ")));
  if (w.changes.empty()) {
    to << "lines changed: none\n";
    return;
  }
  to << "lines changed:\n";
  for (const DiffLine& d : w.changes) to << fmt::format("  {} {:>5}: {}\n", d.kind, d.line, d.text);
}

}  // namespace

int emit_config(const PluginRegistry& registry, const Model& model, const ModelFlags& flags,
                const StrategyToWrite& s, const std::string& out, std::ostream& summary,
                const PriceCheck* price) {
  const WrittenConfig w = write_config(registry, model, flags.config, flags.parse, s, price);
  if (!w.fragments.empty()) {
    // No trainer in the file: what to write in each trainer's config instead.
    std::string text =
        fmt::format("# {} states no trainer: the strategy {}\n# as each trainer writes it.\n",
                    flags.config, strategy_text(w.strategy));
    for (const ConfigFragment& f : w.fragments)
      text += f.refused.empty()
                  ? fmt::format("\n# {} ({})\n{}", f.format, f.parser, f.text)
                  : fmt::format("\n# {} ({}): cannot run it: {}\n", f.format, f.parser, f.refused);
    if (out.empty()) {
      std::cout << text;
    } else {
      write_output_file(out, [&](std::ostream& o) { o << text; });
      summary << fmt::format("wrote {}: the strategy as the trainers that run it write it\n", out);
    }
    return 0;
  }
  if (out.empty()) {
    std::cout << w.text;
    print_changes(std::cerr, w, model);
    return 0;
  }
  write_output_file(out, [&](std::ostream& o) { o << w.text; });
  summary << fmt::format("wrote {} ({} with the strategy applied; read back by {} and checked{})\n",
                         out, flags.config, w.parser,
                         price != nullptr ? ": it prices as the ranked job" : "");
  print_changes(summary, w, model);
  return 0;
}

void add_apply_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<ApplyArgs>();
  CLI::App* verb = app.add_subcommand(
      "apply",
      "Write a strategy into the config: the same file with the strategy's keys changed or added");
  add_model_flags(*verb, args->model);
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices,
                   "How many devices (default: the config's, or the strategy's product)");
  verb->add_option("--strategy", args->strategy,
                   "The strategy to write, e.g. \"tp=4,pp=2,recompute=full\"; keys left out keep "
                   "the config's")
      ->required();
  verb->add_option(
      "-o,--output", args->out,
      "Write the new config to this file (default: stdout, with the changed lines on stderr)");
  verb->callback([&run, &flags, args, devices] {
    run = [&flags, args, devices] {
      PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
      const Model model = read_model(registry, args->model);
      const nds_strategy resolved = strategy_to_apply(model, args->strategy, devices->value_or(0));
      // The split it is priced with (the config's at its own pp and vpp,
      // else the one the trainer builds: Megatron-Core's first/last stages,
      // MindSpeed's padding), and the layers the config's
      // per-stage recompute counts recompute there, which the writer states
      // as search --emit-config does: the job, not only its keys.
      return emit_config(registry, model, args->model,
                         {resolved, priced_stage_layers(resolved, model, {}),
                          placed_layer_options(resolved, model), {}},
                         args->out, std::cout);
    };
  });
}

}  // namespace ndsearch::cli
