// SPDX-License-Identifier: Apache-2.0
// plugin_options.hpp: the flags every verb shares for finding plugins and
// devices (docs/cli.md, "Finding plugins"), and the Planner's settings of them.
#pragma once

#include <CLI/CLI.hpp>
#include <ndsearch/core/planner.hpp>

#include <map>
#include <string>
#include <vector>

namespace ndsearch::cli {

struct PluginFlags {
  std::vector<std::string> plugin_paths;            // --plugin-path DIR[:DIR...], repeatable
  std::vector<std::string> plugin_files;            // --plugin FILE, repeatable
  std::string device_file;                          // --device-file FILE (toml-device)
  std::vector<std::string> allow_override;          // --allow-override ID, repeatable
  double plugin_timeout_s = 10;                     // --plugin-timeout SECONDS
  int verbosity = 1;                                // -v (DESIGN §8.8)
  std::map<std::string, std::string> verb_options;  // options a verb adds ("swap-optimizer", ...)
};

void add_plugin_flags(CLI::App& app, PluginFlags& flags);

// The Planner's settings of `flags`. Plugins' writes to stdout go to stderr
// from here on: the program's stdout is its output (stdout_guard.hpp).
PluginSettings plugin_settings(const PluginFlags& flags);

// A Planner loaded with `flags`' plugins and devices.
Planner load_planner(const PluginFlags& flags);

}  // namespace ndsearch::cli
