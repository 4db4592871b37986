// SPDX-License-Identifier: Apache-2.0
// plugin_options.hpp: the options every verb shares for finding plugins.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/plugins/registry.hpp"

namespace ndsearch::cli {

struct PluginFlags {
  std::vector<std::string> plugin_paths;  // --plugin-path DIR[:DIR...], repeatable
  std::vector<std::string> plugin_files;  // --plugin FILE, repeatable
  std::string device_file;                // --device-file FILE (toml-device)
  std::vector<std::string> allow_override;  // --allow-override ID, repeatable
  double plugin_timeout_s = 10;             // --plugin-timeout SECONDS
  int verbosity = 1;                      // -v (DESIGN §8.8)
  PluginOptions verb_options;             // options a verb adds ("swap-optimizer", ...)
};

// Adds --plugin-path, --plugin, --device-file, --allow-override and
// --plugin-timeout to `app`.
void add_plugin_flags(CLI::App& app, PluginFlags& flags);

// The search the flags, NDS_PLUGIN_PATH and the install dir describe, with
// the plugin options: "device-file" (--device-file) and "device-path"
// (NDS_DEVICE_PATH). From here on plugins cannot write on the program's
// stdout (stdout_guard.hpp): the verbs load plugins right after.
PluginSearch plugin_search(const PluginFlags& flags);

}  // namespace ndsearch::cli
