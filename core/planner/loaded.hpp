// SPDX-License-Identifier: Apache-2.0
// loaded.hpp: what a Planner loads once and every call works with: its
// plugins and devices, and the options its plugins read. Results that work
// on after the call (SearchReport's streamed JSON) share it.
#pragma once

#include <ndsearch/core/planner.hpp>

#include <memory>
#include <mutex>

#include "core/input/device_catalog.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/plugin_host/run_options.hpp"

namespace ndsearch {

// Every call works for this Planner's run: a plugin shared with another live
// Planner reads this one's options in the calls made for it (run_options.hpp).
// The devices are read at the first call that needs them (not `plugins`,
// `model` or `apply`), so that a device file in error stops only the calls
// that price; an error is thrown by each such call until one reads them.
struct Planner::Loaded {
  std::shared_ptr<const PluginOptions> options;
  PluginRegistry registry;
  bool device_file_named = false;  // an error in the user's device file stops the run

  const DeviceCatalog& catalog() const {
    std::call_once(catalog_read_, [this] {
      catalog_ = std::make_unique<DeviceCatalog>(DeviceCatalog::load(registry, device_file_named));
    });
    return *catalog_;
  }

 private:
  mutable std::once_flag catalog_read_;
  mutable std::unique_ptr<DeviceCatalog> catalog_;
};

}  // namespace ndsearch
