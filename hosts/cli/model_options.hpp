// SPDX-License-Identifier: Apache-2.0
// model_options.hpp: the flags every verb that reads a config shares (the
// config, its parser, the settings that override it), and -d, into the
// Planner's settings.
#pragma once

#include <CLI/CLI.hpp>
#include <ndsearch/core/planner.hpp>

#include <cstdint>
#include <string>

namespace ndsearch::cli {

void add_model_flags(CLI::App& verb, ModelSettings& settings, bool config_required = true);

struct DevicesFlag {
  uint64_t devices = 0;
  const CLI::Option* option = nullptr;
  // The devices given, checked (E-DEVICE-COUNT for 0 or beyond the limit),
  // else `fallback`.
  uint64_t value_or(uint64_t fallback) const;
};
void add_devices_flag(CLI::App& verb, DevicesFlag& flag, const std::string& help);

}  // namespace ndsearch::cli
