// Layering probe (tests/layering/CMakeLists.txt): in a shipped plugin's
// include context a core header must not resolve (plugins see abi/, sdk/
// and plugins/common only), so this must fail to compile.
#include "core/model/model.hpp"
