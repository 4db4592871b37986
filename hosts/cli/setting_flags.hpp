// SPDX-License-Identifier: Apache-2.0
// setting_flags.hpp: the CLI's spelling of the core's settings. Core text
// names a setting by its words and key, "the device count (`devices`)"
// (ndsearch/core/settings.hpp); the CLI shows the flag that sets it instead,
// "the device count (-d N)", wherever it prints core text as text (errors,
// warnings, the tables). JSON documents keep the keys, so that they equal
// the Python binding's dicts (docs/cli.md).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace ndsearch::cli {

struct SettingFlag {
  std::string_view key;          // a key of kSettingNames: "devices"
  std::string_view flag;         // how the CLI sets it: "-d"
  std::string_view placeholder;  // shown after the flag when no value is: "N"
};

// One row per setting the CLI has a flag for.
std::span<const SettingFlag> setting_flags();

// The settings of kSettingNames no flag sets (a host's setting the CLI
// spells otherwise, e.g. `options`), left as the core wrote them.
std::span<const std::string_view> settings_without_flag();

// `text` with each setting the core named, "the device count (`devices`)"
// or "the device count (`devices=0`)", written with its flag: "the device
// count (-d N)", "the device count (-d 0)". Backticked text not so preceded
// by its setting's words (a config's field) is left as it is.
std::string with_flags(std::string_view text);

}  // namespace ndsearch::cli
