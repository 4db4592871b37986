// SPDX-License-Identifier: Apache-2.0
// logging.hpp: one stderr logger for the core ("ndsearch") whose sinks and
// level every plugin logger ("plugin.<id>") clones.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ndsearch {

// Rewrites a message before it is written: the CLI spells the settings a
// core warning names (`devices`) as its flags (-d N).
using LogRewrite = std::function<std::string(std::string_view)>;

// At the default verbosity, the warnings written; the others are counted.
inline constexpr size_t kWarningsShown = 3;

// Verbosity: 0 errors only; 1 (default) errors and the first kWarningsShown
// warnings; 2 every warning; 3 adds debug output. Call before loading
// plugins: their loggers copy the level and share the sinks.
void configure_logging(int verbosity, LogRewrite rewrite = {});

// How many warnings verbosity 1 counted without writing them.
size_t warnings_held_back();

}  // namespace ndsearch
