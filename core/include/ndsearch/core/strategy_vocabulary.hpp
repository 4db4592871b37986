// SPDX-License-Identifier: Apache-2.0
// strategy_vocabulary.hpp: the strategy's keys as a host's help text names
// them, read from the core's one table of keys (so a help text cannot list
// a key the core does not read, or miss one it does).
#pragma once

#include <string>

namespace ndsearch {

// "dp tp pp cp ep etp vpp sp zero op mbs mbn recompute schedule": the keys
// of a strategy string and of --only, in a strategy's order.
std::string strategy_key_words();

// "DP TP PP CP EP ETP VPP SP ZERO MBS MBN RECOMPUTE; MP = TP, MB = MBN; also
// OP, SCHEDULE": the dimensions a search searches by default, the aliases
// and the others it can search.
std::string default_dimension_words();

}  // namespace ndsearch
