// SPDX-License-Identifier: Apache-2.0
// apply_strategy.hpp: a strategy written into a MindFormers training YAML:
// parallel_config, the parallel optimizer, recompute_config, the pipeline
// scheduler, offsets and the micro-batch settings; every other line kept.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <cstdint>
#include <string>

namespace ndsearch::plugins::mindformers {

// Expert tensor parallelism where moe_config.expert_model_parallel is not
// stated: MindFormers splits the experts by tp unless tp·ep outgrows dp·tp,
// where they are whole (the reference's rule, nd_behaviour.md "Expert
// degrees"). The parser reads and the writer writes by this one rule.
inline int64_t unstated_etp(int64_t dp, int64_t tp, int64_t ep) {
  return tp * ep > dp * tp ? 1 : tp;
}

// Throws sdk::Error(NDS_UNSUPPORTED) for what MindFormers cannot state.
std::string apply_strategy(const std::string& path, const sdk::AppliedStrategy& applied);

}  // namespace ndsearch::plugins::mindformers
