// SPDX-License-Identifier: Apache-2.0
// apply_verb.hpp: `ndsearch apply CONFIG --strategy "..." [-o OUT]`: the
// user's config with the strategy written into it by its parser (a Hugging
// Face config.json: the trainers' flags and tables instead), and the lines
// that changed. search --emit-config writes a ranked strategy the same way.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

void add_apply_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
