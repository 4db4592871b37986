// SPDX-License-Identifier: Apache-2.0
// towers.hpp: a model's vision towers as the core prices them (the SDK's
// tower_math on the core's model IR): their shape, parameters and patches
// per sequence, and how many language-model layers a tower's work counts
// as when the pipeline's layers are split.
#pragma once

#include <ndsearch/sdk/tower_math.hpp>

#include <cstdint>

#include "core/model/model.hpp"

namespace ndsearch {

sdk::TowerShape tower_shape(const ModelPart& tower);
sdk::TowerParameters tower_parameters(const ModelPart& tower);
sdk::TowerTokens tower_tokens(const Model& model, const ModelPart& tower);

// Forward FLOPs of one sequence through `tower`: 2 per parameter of its
// linears per patch (the mergers' per merged token) and the attention
// core's 4·keys·heads·head_dim per patch and layer (bidirectional: every
// key of its window or image).
double tower_forward_flops(const Model& model, const ModelPart& tower);

// The language-model layers the towers' work is worth (the towers sit with
// the embedding on the first stage): their forward FLOPs per sequence over
// one decoder layer's (its GEMMs, and causal attention as the kernels run it:
// half of 4·s²·h_attn). 0 without towers or image tokens.
double tower_layer_ratio(const Model& model);

// What the towers count as in the pipeline's default split under `cp`: the
// ratio times cp (each CP rank runs the images whole, its layers a 1/cp
// share of the sequence), rounded, at most every layer.
// `layers`: the model's decoder layers (the caller has them).
uint32_t tower_stage_layers(const Model& model, int32_t cp, uint32_t layers);

}  // namespace ndsearch
