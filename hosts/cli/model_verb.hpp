// SPDX-License-Identifier: Apache-2.0
// model_verb.hpp: `ndsearch model CONFIG`: what the parser understood.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "hosts/cli/plugin_options.hpp"

namespace ndsearch::cli {

void add_model_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run);

}  // namespace ndsearch::cli
