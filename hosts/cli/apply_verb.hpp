// SPDX-License-Identifier: Apache-2.0
// apply_verb.hpp: `ndsearch apply CONFIG --strategy "..." [-o OUT]`: the
// user's config with the strategy written into it by its parser (a Hugging
// Face config.json: the trainers' flags and tables instead), and the lines
// that changed. search --emit-config writes a ranked strategy the same way.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <ostream>
#include <string>

#include "core/apply/write_config.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

// Writes `s` into the config of `flags` (read as `model`): to `out` (what
// changed then goes to `summary`), or to stdout when `out` is empty (the
// changes then go to stderr). Returns 0.
int emit_config(const PluginRegistry& registry, const Model& model, const ModelFlags& flags,
                const StrategyToWrite& s, const std::string& out, std::ostream& summary,
                const PriceCheck* price = nullptr);

void add_apply_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
