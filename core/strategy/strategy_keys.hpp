// SPDX-License-Identifier: Apache-2.0
// strategy_keys.hpp: the strategy's integer keys by name, in a strategy's
// order (dp tp pp cp ep etp vpp sp zero op mbs mbn): what reads a strategy
// string and what prints a strategy's columns walk the same list.
#pragma once

#include <ndsearch/nds_model.h>

#include <string_view>

namespace ndsearch {

struct StrategyIntKey {
  std::string_view name;
  int32_t nds_strategy::*field;
};

inline constexpr StrategyIntKey kStrategyIntKeys[] = {
    {"dp", &nds_strategy::dp},   {"tp", &nds_strategy::tp},   {"pp", &nds_strategy::pp},
    {"cp", &nds_strategy::cp},   {"ep", &nds_strategy::ep},   {"etp", &nds_strategy::etp},
    {"vpp", &nds_strategy::vpp}, {"sp", &nds_strategy::sp},   {"zero", &nds_strategy::zero},
    {"op", &nds_strategy::op},   {"mbs", &nds_strategy::mbs}, {"mbn", &nds_strategy::mbn}};

}  // namespace ndsearch
