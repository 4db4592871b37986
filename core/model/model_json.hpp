// SPDX-License-Identifier: Apache-2.0
// model_json.hpp: what `ndsearch model` prints: the model as understood, its
// parameter counts, every value's provenance and the warnings (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/model.hpp"

namespace ndsearch {

nlohmann::json model_to_json(const Model& model);

// One block's values by their keys (the model JSON's "blocks" entries); null
// where unknown.
nlohmann::json block_json(const nds_layer_block& block);

// A strategy as the verbs print it (DESIGN §8.8): each key of
// strategy_keys.hpp, degrees as integers, recompute and schedule as names,
// unknown as null.
nlohmann::json strategy_json(const nds_strategy& s);

// The names the JSON uses for enumerations ("bf16", "swiglu", "interleaved"...).
const char* dtype_name(nds_dtype dtype);
const char* fp8_recipe_name(int32_t recipe);  // NDS_FP8_*: "none", "delayed", ...
const char* recompute_name(nds_recompute_mode mode);

// The trainer's split of the layers over stages: {rule, edge_layers}.
nlohmann::json stage_split_json(const nds_training& t);
const char* schedule_name(nds_schedule schedule);

}  // namespace ndsearch
