// Layering probe (tests/layering/CMakeLists.txt): in the core's include
// context a CLI header must not resolve, so this must fail to compile.
#include "hosts/cli/eval_verb.hpp"
