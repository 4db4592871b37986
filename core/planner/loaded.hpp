// SPDX-License-Identifier: Apache-2.0
// loaded.hpp: what a Planner loads once and every call works with: its
// plugins and devices, and the options its plugins read. Results that work
// on after the call (SearchReport's streamed JSON) share it.
#pragma once

#include <ndsearch/core/planner.hpp>

#include <memory>

#include "core/input/device_catalog.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/plugin_host/run_options.hpp"

namespace ndsearch {

// Every call works for this Planner's run: a plugin shared with another live
// Planner reads this one's options in the calls made for it (run_options.hpp).
struct Planner::Loaded {
  std::shared_ptr<const PluginOptions> options;
  PluginRegistry registry;
  DeviceCatalog catalog;
};

}  // namespace ndsearch
