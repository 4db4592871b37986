// SPDX-License-Identifier: Apache-2.0
// model_options.hpp: the flags every verb that reads a config shares: the
// config, -f, --strict and the training settings that override it; and -d.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "core/model/model.hpp"
#include "core/model/parse_config.hpp"
#include "core/plugins/registry.hpp"

namespace ndsearch::cli {

struct ModelFlags {
  std::string config;
  ParseOptions parse;
};

// Adds CONFIG, -f, --strict, --seq-len, -b/--global-batch, --mbs, --dtype,
// --fp8-recipe, --overlap and --vocab-size to `verb`. The core checks the
// values (E-MODEL-LIMIT for a size beyond its limits or below 1; E-USAGE
// names the valid --dtype, --fp8-recipe and --overlap).
// `config_required` false: CONFIG may be left out (compare, whose validation
// CSVs name a config per row); the verb checks it.
void add_model_flags(CLI::App& verb, ModelFlags& flags, bool config_required = true);

// The config parsed as `flags` say. A CONFIG that is not a regular file (a
// directory, a FIFO, a device) is refused here, by what it is, before any
// parser opens it: opening a FIFO would block, a device read without end.
// Throws UserError E-PARSE-FILE, or what parse_config throws.
Model read_model(const PluginRegistry& registry, const ModelFlags& flags);

// -d/--devices into `devices`; `given` tells whether it was on the command
// line (0 is then an error, E-DEVICE-COUNT, not "not given").
struct DevicesFlag {
  uint64_t devices = 0;
  const CLI::Option* option = nullptr;
  // The devices given, checked (E-DEVICE-COUNT for 0 or beyond the limit),
  // else `fallback`.
  uint64_t value_or(uint64_t fallback) const;
};
void add_devices_flag(CLI::App& verb, DevicesFlag& flag, const std::string& help);

}  // namespace ndsearch::cli
