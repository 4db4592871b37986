// SPDX-License-Identifier: Apache-2.0
// priced_layers.hpp: each decoder layer's recompute option as a strategy was
// priced (nds_applied_strategy.layer_options): what a recompute strategy
// chose, or the recomputed layers the strategy's mode and the config's
// per-stage counts (rescaled to its pp) give, so that a writer can state the
// job that was ranked, not only its keys.
#pragma once

#include <cstdint>
#include <vector>

#include "core/price/evaluate_strategy.hpp"

namespace ndsearch {

// The nds_layer_option of every decoder layer of a priced evaluation, model
// order; empty when every layer runs the strategy's recompute mode (what a
// writer's one recompute switch states).
std::vector<int32_t> priced_layer_options(const StrategyEvaluation& e, uint32_t layers);

// The same for a strategy that is not priced (apply): the recomputed layers
// its placement gives (the strategy's mode on the config's per-stage counts,
// rescaled to its pp), the first of each chunk, as an evaluation places them.
std::vector<int32_t> placed_layer_options(const nds_strategy& s, const Model& model);

// The decoder layers per virtual stage (chunk·pp + rank) a resolved strategy
// is priced with (placement.hpp: the config's stated split where it applies,
// else the trainer's, towers counted), or `balanced` when a balanced search
// gave one; empty when every
// virtual stage holds as many (the split every trainer builds alike).
std::vector<int64_t> priced_stage_layers(const nds_strategy& s, const Model& model,
                                         const std::vector<uint32_t>& balanced);

}  // namespace ndsearch
