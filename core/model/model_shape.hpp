// SPDX-License-Identifier: Apache-2.0
// model_shape.hpp: a training config's model taken from another config, the
// model config (a Hugging Face config.json): the architecture from it, the
// training settings from the training config. For a training config that
// names its model but not its shape (a TorchTitan flavor ndsearch does not
// know, a MindSpeed FSDP2 YAML, a launch script without the model's flags).
#pragma once

#include "core/model/model.hpp"

namespace ndsearch {

// `training` (parsed, not finalized) with the architecture of `shape`
// (parsed alone, not finalized): the language model's blocks, vocabulary,
// tied embeddings, positions and name, and its towers. What `training`
// itself states about the shape must agree with `shape`: a disagreement is
// an error naming both files and each field, except max_position_embeddings
// where positions are not learned (rotary positions have no table: the
// length changes nothing priced), which is a warning. What a training config
// states beside the shape stays its own: flash attention, and per block the
// capacity factor, dropouts and grouped GEMM. A training setting it leaves
// unknown (a dtype, the optimizer, ZeRO, a trainer capability) takes the
// model config's, which for a Hugging Face config.json is ndsearch's default.
// Throws UserError E-MODEL-CONFIG.
void take_shape(Model& training, const Model& shape);

}  // namespace ndsearch
