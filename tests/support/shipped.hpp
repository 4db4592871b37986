// SPDX-License-Identifier: Apache-2.0
// shipped.hpp: the shipped plugins, loaded once per test program, and their
// devices, for tests that price with the real memory passes and devices.
#pragma once

#include <optional>
#include <string_view>

#include <ndsearch/core/planner.hpp>

#include "core/input/device_catalog.hpp"
#include "core/plugin_host/registry.hpp"

namespace ndsearch::test {

// The registry stays loaded between test cases (loading takes a while); a
// test may load the shipped plugins with options of its own meanwhile (they
// read their options per call), or let it go to have them initialised afresh.
inline std::optional<PluginRegistry>& shipped_registry_slot() {
  static std::optional<PluginRegistry> registry;
  return registry;
}

inline const PluginRegistry& shipped_plugins() {
  std::optional<PluginRegistry>& registry = shipped_registry_slot();
  if (!registry) {
    PluginSearch search;
    search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
    registry = PluginRegistry::load(search);
  }
  return *registry;
}

// For a test whose runs must each initialise the shipped plugins: no registry
// of this program holds them (a reference from shipped_plugins() dangles).
inline void release_shipped_plugins() {
  shipped_registry_slot().reset();
}

inline const DeviceCatalog& shipped_devices() {
  static DeviceCatalog catalog = DeviceCatalog::load(shipped_plugins(), false);
  return catalog;
}

inline const Device& shipped_device(std::string_view id) {
  return shipped_devices().resolve(id);
}

// A Planner's settings for the shipped plugins alone (not the environment's).
inline PluginSettings shipped_plugin_settings() {
  PluginSettings plugins;
  plugins.shipped_dir = NDS_TEST_SHIPPED_PLUGINS;
  plugins.use_environment = false;
  plugins.vet_helper = NDS_TEST_VET;
  return plugins;
}

}  // namespace ndsearch::test
