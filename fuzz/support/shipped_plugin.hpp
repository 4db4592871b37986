// SPDX-License-Identifier: Apache-2.0
// shipped_plugin.hpp: a registry holding one shipped plugin, loaded the way
// the host loads its install folder, for harnesses that drive a plugin
// through the core.
#pragma once

#include <string>

#include "core/plugin_host/registry.hpp"

namespace ndsearch::fuzz {

// Loads the plugins of `folder` (the fuzz build copies one plugin there) with
// `options`, logging off; aborts when the plugin `id` is not among them
// (a broken build, not a finding). Kept for the life of the process: a
// module is initialised once per process.
const PluginRegistry& shipped_plugin(const std::string& folder, const std::string& id,
                                     const PluginOptions& options = {});

// The loaded plugin `id` of `registry`.
const LoadedPlugin& plugin_in(const PluginRegistry& registry, const std::string& id);

}  // namespace ndsearch::fuzz
