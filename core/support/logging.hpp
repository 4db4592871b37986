// SPDX-License-Identifier: Apache-2.0
// logging.hpp: one stderr logger for the core ("ndsearch") whose sinks and
// level every plugin logger ("plugin.<id>") clones.
#pragma once

namespace ndsearch {

// -v of DESIGN §8.8: 0 errors only, 1 (default) errors, 2 adds warnings,
// 3 adds debug. Call before loading plugins: their loggers copy the level.
void configure_logging(int verbosity);

}  // namespace ndsearch
