// SPDX-License-Identifier: Apache-2.0
// main.cpp: the `ndsearch` program: parses the command line, sets up logging
// and runs the chosen verb; every user error leaves with its id and exit code.
#include <fmt/format.h>
#include <ndsearch/nds_abi.h>
#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <ndsearch/core/logging.hpp>
#include <ndsearch/core/user_error.hpp>
#include "hosts/cli/apply_verb.hpp"
#include "hosts/cli/compare_verb.hpp"
#include "hosts/cli/eval_verb.hpp"
#include "hosts/cli/explain_verb.hpp"
#include "hosts/cli/hardware_verb.hpp"
#include "hosts/cli/model_verb.hpp"
#include "hosts/cli/plugin_options.hpp"
#include "hosts/cli/plugins_verb.hpp"
#include "hosts/cli/search_verb.hpp"
#include "hosts/cli/setting_flags.hpp"
#include "hosts/cli/single_dash_flags.hpp"
#include "hosts/cli/unknown_verb.hpp"
#include "hosts/cli/verb_examples.hpp"

namespace {

// The verb that ran ("eval"), for messages.
std::string verb_name(const CLI::App& app) {
  const auto verbs = app.get_subcommands();
  return verbs.empty() ? std::string("(no command)") : verbs.front()->get_name();
}

// " on <its first positional argument>" (the config, the plugin), or empty.
std::string input_text(const CLI::App& app) {
  const auto verbs = app.get_subcommands();
  if (verbs.empty()) return {};
  for (const CLI::Option* option : verbs.front()->get_options())
    if (option->get_positional() && option->count() > 0) return " on " + option->results().front();
  return {};
}

// Runs the verb; every error leaves with its id and exit code.
int run_verb(const CLI::App& app, const std::function<int()>& run) {
  using namespace ndsearch;
  try {
    return run();
  } catch (const UserError& e) {
    std::cerr << fmt::format("ndsearch: error [{}]: {}\n", e.id(), cli::with_flags(e.what()));
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    // The input asked for more memory than this process may have: a user's
    // limit to raise or a search to narrow, not a bug.
    std::cerr << fmt::format(
        "ndsearch: error [E-OUT-OF-MEMORY]: out of memory in `ndsearch {}`{}; the input needs "
        "more memory than this process may use: narrow the search (-t, -l, --only) or raise "
        "the memory limit (ulimit -v)\n",
        verb_name(app), input_text(app));
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << fmt::format(
        "ndsearch: error [E-INTERNAL]: {} (this is a bug in ndsearch; "
        "please report it with the command line)\n",
        e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ndsearch;
  CLI::App app(
      "ndsearch: finds the fastest hybrid-parallel strategy to train a large language "
      "model on a given cluster",
      "ndsearch");
  app.set_version_flag(
      "--version", fmt::format("ndsearch {} (plugin ABI {})", NDS_VERSION, NDS_ABI_VERSION_STRING));
  app.require_subcommand(1);
  app.fallthrough();  // global flags may follow the verb

  cli::PluginFlags plugin_flags;
  app.add_option("-v,--verbose", plugin_flags.verbosity,
                 "0 errors only; 1 (default) the results and the first three warnings; 2 every "
                 "warning; 3 adds "
                 "debug output and every dropped candidate")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  cli::add_plugin_flags(app, plugin_flags);

  std::function<int()> run;
  cli::add_eval_verb(app, plugin_flags, run);
  cli::add_search_verb(app, plugin_flags, run);
  cli::add_explain_verb(app, plugin_flags, run);
  cli::add_apply_verb(app, plugin_flags, run);
  cli::add_compare_verb(app, plugin_flags, run);
  cli::add_model_verb(app, plugin_flags, run);
  cli::add_hardware_verb(app, plugin_flags, run);
  cli::add_plugins_verb(app, plugin_flags, run);
  cli::add_verb_examples(app);  // after every verb: each --help ends with two examples

  // The reference's -ar and -ao, which CLI11 cannot read as they are.
  const std::vector<const char*> words = cli::with_double_dash_flags(argc, argv);
  try {
    app.parse(argc, words.data());
  } catch (const UserError& e) {
    // A flag's own reader (a CLI11 callback, such as -l's) refused its words.
    std::cerr << fmt::format("ndsearch: error [{}]: {}\n", e.id(), e.what());
    return e.exit_code();
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // An unknown flag's message names where to read the verb's flags.
    const std::optional<std::string> unknown_flag =
        dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr
            ? cli::unknown_flag_message(app, argc, words.data())
            : std::nullopt;
    const std::optional<std::string> unknown = cli::unknown_verb_message(app, argc, words.data());
    if (!unknown && unknown_flag) {
      std::cerr << fmt::format("ndsearch: error [E-USAGE]: {}\n", *unknown_flag);
      return kExitUsage;
    }
    std::cerr << fmt::format("ndsearch: error [E-USAGE]: {}; run `ndsearch --help` for the usage\n",
                             unknown ? *unknown : std::string(e.what()));
    return kExitUsage;
  }
  configure_logging(plugin_flags.verbosity, cli::with_flags);  // warnings name the flags too
  const int code = run_verb(app, run);
  if (const size_t held_back = warnings_held_back(); held_back > 0)
    std::cerr << fmt::format(
        "ndsearch: note: {} more warning{} not shown; -v 2 shows every warning\n", held_back,
        held_back == 1 ? "" : "s");
  return code;
}
