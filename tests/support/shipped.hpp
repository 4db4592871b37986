// SPDX-License-Identifier: Apache-2.0
// shipped.hpp: the shipped plugins, loaded once per test program, and their
// devices, for tests that price with the real memory passes and devices.
#pragma once

#include <string_view>

#include "core/hardware/device_catalog.hpp"
#include "core/plugins/registry.hpp"

namespace ndsearch::test {

inline const PluginRegistry& shipped_plugins() {
  static PluginRegistry registry = [] {
    PluginSearch search;
    search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
    return PluginRegistry::load(search);
  }();
  return registry;
}

inline const DeviceCatalog& shipped_devices() {
  static DeviceCatalog catalog = DeviceCatalog::load(shipped_plugins(), false);
  return catalog;
}

inline const Device& shipped_device(std::string_view id) { return shipped_devices().resolve(id); }

}  // namespace ndsearch::test
