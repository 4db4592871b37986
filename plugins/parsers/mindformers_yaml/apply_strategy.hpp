// SPDX-License-Identifier: Apache-2.0
// apply_strategy.hpp: a strategy written into a MindFormers training YAML:
// parallel_config, the parallel optimizer, recompute_config, the pipeline
// scheduler, offsets and the micro-batch settings; every other line kept.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <string>

namespace ndsearch::plugins::mindformers {

// Throws sdk::Error(NDS_UNSUPPORTED) for what MindFormers cannot state.
std::string apply_strategy(const std::string& path, const sdk::AppliedStrategy& applied);

}  // namespace ndsearch::plugins::mindformers
