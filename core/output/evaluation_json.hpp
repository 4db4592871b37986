// SPDX-License-Identifier: Apache-2.0
// evaluation_json.hpp: a strategy's evaluation as `eval --format json`
// prints it (docs/cli.md), and the per-stage memory the search's rows list.
#pragma once

#include <ndsearch/nds_memory.h>
#include <nlohmann/json.hpp>

#include <utility>

#include "core/price/evaluate_strategy.hpp"

namespace ndsearch {

// The eval document: schema_version, model, strategy and its sources, valid
// and refusal, memory and time when priced, warnings.
nlohmann::json evaluation_json(const StrategyEvaluation& evaluation);

// A stage's memory terms as its JSON keys name them, in the order they stack.
inline constexpr std::pair<const char*, nds_memory_term> kStageMemoryTerms[] = {
    {"params_bytes", NDS_MEMORY_PARAMS},
    {"grads_bytes", NDS_MEMORY_GRADS},
    {"optimizer_bytes", NDS_MEMORY_OPTIMIZER},
    {"activations_bytes", NDS_MEMORY_ACTIVATIONS},
    {"comm_buffers_bytes", NDS_MEMORY_COMM_BUFFERS},
    {"other_bytes", NDS_MEMORY_OTHER}};

// [{stage, layers, params_bytes, ..., other_bytes, peak_bytes}] by pipeline
// rank, null when the evaluation was refused.
nlohmann::json stages_json(const StrategyEvaluation& evaluation);
// A vision-language model's towers (null without towers or prices): their
// parameters, the bytes they add to each rank and their share of the rank
// holding them, their exposed seconds and FLOPs and their share of the step's.
nlohmann::json towers_json(const StrategyEvaluation& evaluation);

}  // namespace ndsearch
