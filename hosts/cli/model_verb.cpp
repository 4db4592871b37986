// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/model_verb.hpp"

#include <ndsearch/core/json_text.hpp>

#include <iostream>
#include <memory>

#include "hosts/cli/model_options.hpp"
#include "hosts/cli/terminal_width.hpp"

namespace ndsearch::cli {

void add_model_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  struct Args {
    ModelSettings model;
    std::string format = "table";
  };
  auto args = std::make_shared<Args>();
  CLI::App* verb = app.add_subcommand("model", "What the parser understood of a config");
  add_model_flags(*verb, args->model);
  verb->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  verb->callback([&run, &flags, args] {
    run = [&flags, args] {
      const Listing model = load_planner(flags).model(args->model);
      if (args->format == "json")
        std::cout << json_text(model.to_json(), 2) << "\n";
      else
        model.write_text(std::cout, cli_text());
      return kExitOk;
    };
  });
}

}  // namespace ndsearch::cli
