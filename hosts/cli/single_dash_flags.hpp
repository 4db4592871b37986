// SPDX-License-Identifier: Apache-2.0
// single_dash_flags.hpp: the reference tool's (SAPP ND) single-dash spellings
// of the per-layer recompute flags, `-ar` (auto recompute) and `-ao` (auto
// offload), read as our `--ar` and `--ao`. CLI11 takes no single-dash long
// option (it reads `-ar` as the short flag `-a` followed by `r`), so the
// words are rewritten before it parses.
#pragma once

#include <vector>

namespace ndsearch::cli {

// argv with each whole word `-ar` or `-ao` written `--ar` or `--ao`, the
// program's name and every other word (`-a`, `-arx`, `--ar`) as they are, and
// nothing after a `--`: from there on the words are positionals, not flags.
// The words point into argv, or at static text for a rewritten one: they live
// as long as argv does.
std::vector<const char*> with_double_dash_flags(int argc, const char* const* argv);

}  // namespace ndsearch::cli
