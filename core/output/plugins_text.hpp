// SPDX-License-Identifier: Apache-2.0
// plugins_text.hpp: the plugins as `plugins list` prints them: id, version,
// ABI, kinds and path of each loaded, then each skipped with its reason.
#pragma once

#include <ndsearch/core/results.hpp>

#include <ostream>

#include "core/plugin_host/registry.hpp"

namespace ndsearch {

void write_plugins_text(std::ostream& out, const PluginRegistry& registry,
                        const TextSettings& text);

}  // namespace ndsearch
