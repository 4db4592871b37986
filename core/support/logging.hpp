// SPDX-License-Identifier: Apache-2.0
// logging.hpp: one stderr logger for the core ("ndsearch") whose sinks and
// level every plugin logger ("plugin.<id>") clones.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace ndsearch {

// Rewrites a message before it is written: the CLI spells the settings a
// core warning names (`devices`) as its flags (-d N).
using LogRewrite = std::function<std::string(std::string_view)>;

// -v of DESIGN §8.8: 0 errors only, 1 (default) errors, 2 adds warnings,
// 3 adds debug. Call before loading plugins: their loggers copy the level.
void configure_logging(int verbosity, LogRewrite rewrite = {});

}  // namespace ndsearch
