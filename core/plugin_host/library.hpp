// SPDX-License-Identifier: Apache-2.0
// library.hpp: opens a plugin library with Boost.DLL and finds its entry point.
// Libraries are never closed: a plugin's code and data stay mapped until the
// process exits, which sidesteps every use-after-unload pitfall of Boost.DLL.
#pragma once

#include <ndsearch/nds_abi.h>

#include <filesystem>

namespace ndsearch {

// Opens `path` (RTLD_NOW | RTLD_LOCAL), calls its nds_get_module and returns
// the module table (static in the library). Throws UserError E-PLUGIN-LOAD (not
// a loadable library), E-PLUGIN-NO-ENTRY (a library, but not an ndsearch
// plugin) or E-PLUGIN-ENTRY (the entry returned NULL).
const nds_module* open_plugin_library(const std::filesystem::path& path);

}  // namespace ndsearch
