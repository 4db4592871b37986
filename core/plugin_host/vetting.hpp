// SPDX-License-Identifier: Apache-2.0
// vetting.hpp: before a plugin library from the search path is loaded into the
// host, it is vetted in a child process: the helper program
// `ndsearch-plugin-vet` (installed with the library, so every host vets the
// same way) loads it, runs its init, asks for its interfaces and makes one
// sample call of each kind it offers (the `plugins check` machinery), within
// a time limit. A library that crashes, aborts, hangs, exits or fails to load
// there is never loaded in-process. The verdict is cached per file version
// (verdict_cache.hpp), so a plugin costs one child process per version.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "core/plugin_host/module_host.hpp"
#include "core/plugin_host/verdict_cache.hpp"
#include "core/plugin_host/watchdog.hpp"

namespace ndsearch {

struct VetSettings {
  bool enabled = true;
  std::optional<std::filesystem::path> helper;     // default: find_vet_helper()
  std::optional<std::filesystem::path> cache_dir;  // default: default_verdict_cache_dir()
  bool use_cache = true;
  std::chrono::milliseconds timeout = kDefaultPluginCallTimeout;  // for the whole child run
};

// The helper program: $NDS_PLUGIN_VET, else beside the running program, else
// in the installed libexec folder. nullopt when none is found.
std::optional<std::filesystem::path> find_vet_helper();

// The helper's arguments for one plugin: its options and the plugin's path.
std::vector<std::string> vet_helper_args(const std::filesystem::path& plugin,
                                         const PluginOptions& options,
                                         const std::optional<std::filesystem::path>& sample_config);

// Vets `plugin` (cached). Throws UserError E-PLUGIN-VET when the helper cannot
// be found or started: then nothing can be vetted, and the caller skips the plugin.
VetVerdict vet_plugin(const std::filesystem::path& plugin, const PluginOptions& options,
                      const VetSettings& settings);

}  // namespace ndsearch
