// Layering probe (tests/layering/CMakeLists.txt): in the core's include
// context a core header resolves. The control for core_includes_cli.cpp.
#include "core/model/model.hpp"
