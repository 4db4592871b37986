// Layering probe (tests/layering/CMakeLists.txt): in a host's include
// context (the CLI's, the Python binding's) the public API resolves. The
// control for host_includes_core.cpp.
#include <ndsearch/core/planner.hpp>
