// Layering probe (tests/layering/CMakeLists.txt): in a host's include
// context a private core header must not resolve (hosts call the public API
// only), so this must fail to compile.
#include "core/model/model.hpp"
