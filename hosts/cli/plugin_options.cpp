// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/plugin_options.hpp"

#include <iostream>

#include <ndsearch/core/stdout_guard.hpp>

namespace ndsearch::cli {

void add_plugin_flags(CLI::App& app, PluginFlags& flags) {
  app.add_option("--plugin-path", flags.plugin_paths,
                 "Directory of plugin libraries, searched first (DIR or DIR:DIR; repeatable)")
      ->type_name("DIR");
  app.add_option("--plugin", flags.plugin_files,
                 "Load this plugin library first; any failure is an error (repeatable)")
      ->type_name("FILE");
  app.add_option("--device-file", flags.device_file,
                 "A device described in TOML (docs/device-toml.md); an error in it stops the run")
      ->type_name("FILE");
  app.add_option(
         "--allow-override", flags.allow_override,
         "Let a plugin from the search path replace the shipped plugin or device of this id "
         "(repeatable)")
      ->type_name("ID");
  app.add_option(
         "--plugin-timeout", flags.plugin_timeout_s,
         "Seconds a plugin may take to be vetted, or in one probe, parse or get_devices call")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
}

PluginSettings plugin_settings(const PluginFlags& flags) {
  keep_stdout_from_plugins();
  PluginSettings settings;
  for (const std::string& file : flags.plugin_files) settings.plugin_files.emplace_back(file);
  for (const std::string& list : flags.plugin_paths)
    for (auto& directory : split_path_list(list))
      settings.plugin_dirs.push_back(std::move(directory));
  if (!flags.device_file.empty()) settings.device_file = flags.device_file;
  settings.allow_override = flags.allow_override;
  settings.plugin_timeout_s = flags.plugin_timeout_s;
  settings.options = flags.verb_options;
  return settings;
}

Planner load_planner(const PluginFlags& flags) {
  return Planner(plugin_settings(flags));
}

}  // namespace ndsearch::cli
