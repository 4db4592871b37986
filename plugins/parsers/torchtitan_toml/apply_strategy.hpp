// SPDX-License-Identifier: Apache-2.0
// apply_strategy.hpp: a strategy written into a TorchTitan job TOML
// ([parallelism], [activation_checkpoint], [training] batch), each key changed
// in place or added at the end of its table; every other line kept. With no
// file: the [parallelism] block and the batch keys for a job of one's own.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <string>

namespace ndsearch::plugins::torchtitan {

// Throws sdk::Error(NDS_UNSUPPORTED) for what TorchTitan cannot run.
std::string apply_strategy(const std::string& path, const sdk::AppliedStrategy& applied);

}  // namespace ndsearch::plugins::torchtitan
