// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/plugins_verb.hpp"

#include <fmt/format.h>
#include <ndsearch/core/json_text.hpp>

#include <iostream>
#include <memory>
#include <string>

#include "hosts/cli/setting_flags.hpp"
#include "hosts/cli/terminal_width.hpp"

namespace ndsearch::cli {
namespace {

struct CheckArgs {
  std::string path;
  std::string format = "table";
  double timeout_s = 60;
  std::string sample_config;
};

int list_plugins(const PluginFlags& flags, const std::string& format) {
  const Listing plugins = load_planner(flags).plugins();
  if (format == "json")
    std::cout << json_text(plugins.to_json(), 2) << "\n";
  else
    plugins.write_text(std::cout, cli_text());
  return kExitOk;
}

int check(const PluginFlags& flags, const CheckArgs& args) {
  const PluginCheck c =
      check_plugin({plugin_settings(flags), args.path, args.timeout_s, args.sample_config});
  if (args.format == "json") {
    std::cout << json_text(c.result.to_json(), 2) << "\n";
    return c.failure ? kExitUsage : kExitOk;
  }
  c.result.write_text(std::cout, cli_text());
  if (!c.failure) return kExitOk;
  // The error, then what the plugin said on its way down.
  std::cerr << fmt::format("ndsearch: error [{}]: {}\n", c.failure->id(),
                           with_flags(c.failure->what()));
  if (!c.plugin_stderr.empty())
    std::cerr << "plugin output:\n"
              << c.plugin_stderr << (c.plugin_stderr.back() == '\n' ? "" : "\n");
  return kExitUsage;
}

}  // namespace

void add_plugins_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  CLI::App* plugins = app.add_subcommand("plugins", "List the loaded plugins, or check one");
  plugins->require_subcommand(1);

  struct ListArgs {
    std::string format = "table";
  };
  auto list_args = std::make_shared<ListArgs>();
  CLI::App* list = plugins->add_subcommand("list", "The plugins found, their versions and kinds");
  list->add_option("--format", list_args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  list->callback([&run, &flags, list_args] {
    run = [&flags, list_args] { return list_plugins(flags, list_args->format); };
  });

  auto check_args = std::make_shared<CheckArgs>();
  CLI::App* check_verb = plugins->add_subcommand("check",
                                                 "Load one plugin in a child process and run the "
                                                 "conformance checks of each interface it offers");
  check_verb->add_option("PATH", check_args->path, "The plugin library (.so)")->required();
  check_verb->add_option("--format", check_args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  check_verb
      ->add_option("--timeout", check_args->timeout_s, "Seconds before a hanging plugin is killed")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  check_verb
      ->add_option("--sample-config", check_args->sample_config,
                   "A model config for a parser plugin's parse check (default: built-in samples)")
      ->type_name("FILE");
  check_verb->callback([&run, &flags, check_args] {
    run = [&flags, check_args] { return check(flags, *check_args); };
  });
}

}  // namespace ndsearch::cli
