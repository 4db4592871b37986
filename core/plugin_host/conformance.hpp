// SPDX-License-Identifier: Apache-2.0
// conformance.hpp: the checks `ndsearch plugins check` runs on one plugin:
// the module table, then each interface it offers, exercised on a small
// synthetic model and device. Run them in a child process (isolated_check.hpp):
// a plugin that crashes or hangs must not take the caller down.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "core/plugin_host/module_host.hpp"

namespace ndsearch {

struct CheckEvent {
  enum class Kind { begin, pass, fail };
  Kind kind = Kind::begin;
  std::string check;     // "module.load", "hardware.devices", ...
  std::string detail;    // what passed, or what is wrong and how to fix it
  std::string error_id;  // on fail: "E-PLUGIN-INIT", "E-PLUGIN-CONFORMANCE", ...
};

using CheckReporter = std::function<void(const CheckEvent&)>;

// Loads `plugin` and runs every check, reporting each event as it happens
// (a `begin` before a check runs, so a crash can be attributed to it).
// Returns true when every check passed. A parser plugin's parse is called on
// `sample_config` when given, else on the built-in sample it claims.
bool run_conformance_checks(
    const std::filesystem::path& plugin, std::shared_ptr<const PluginOptions> options,
    const CheckReporter& report,
    const std::optional<std::filesystem::path>& sample_config = std::nullopt);

}  // namespace ndsearch
