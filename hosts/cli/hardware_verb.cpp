// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/hardware_verb.hpp"

#include <ndsearch/core/json_text.hpp>

#include <iostream>
#include <memory>
#include <string>

#include "hosts/cli/terminal_width.hpp"

namespace ndsearch::cli {
namespace {

int show_hardware(const PluginFlags& flags, const std::string& id, const std::string& format) {
  const Planner planner = load_planner(flags);
  const Listing listing = id.empty() ? planner.hardware() : planner.device(id);
  if (format == "json")
    std::cout << json_text(listing.to_json(), 2) << "\n";
  else
    listing.write_text(std::cout, cli_text());
  return kExitOk;
}

}  // namespace

void add_hardware_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  struct Args {
    std::string id;
    std::string format = "table";
  };
  auto args = std::make_shared<Args>();
  CLI::App* hardware =
      app.add_subcommand("hardware", "The devices the loaded hardware plugins describe");
  hardware->add_option("ID", args->id, "One device: an id, or A2 / A3");
  hardware->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  hardware->callback([&run, &flags, args] {
    run = [&flags, args] { return show_hardware(flags, args->id, args->format); };
  });
}

}  // namespace ndsearch::cli
