// Layering probe (tests/layering/CMakeLists.txt): in a shipped plugin's
// include context the shared plugin code and the SDK resolve. The control
// for plugin_includes_core.cpp.
#include <ndsearch/sdk/parser.hpp>

#include "plugins/common/parsing/read_limits.hpp"
