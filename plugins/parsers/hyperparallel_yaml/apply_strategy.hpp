// SPDX-License-Identifier: Apache-2.0
// apply_strategy.hpp: a strategy written into a HyperParallel training YAML,
// either schema (legacy train.accelerator, AutoModels accelerator /
// fsdp_config / training); every other line kept.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <string>

namespace ndsearch::plugins::hyperparallel {

// Throws sdk::Error(NDS_UNSUPPORTED) for what the schema cannot state.
std::string apply_strategy(const std::string& path, const sdk::AppliedStrategy& applied);

}  // namespace ndsearch::plugins::hyperparallel
