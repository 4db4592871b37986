// SPDX-License-Identifier: Apache-2.0
// per_op_policy.hpp: which matmuls of a layer PyTorch's per-op selective
// checkpointing runs again under torchtitan's policy
// (NDS_RECOMPUTE_OP_ALTERNATE_MATMULS): one rule for the FLOPs HFU counts
// (layer_facts.cpp) and the seconds the time model prices
// (price/time/per_op_checkpoint.cpp).
#pragma once

#include <ndsearch/nds_model.h>

#include <array>
#include <optional>

namespace ndsearch {

// One matmul of a layer: an `in` x `out` weight applied to every token;
// `column`: TP splits its output (a column-parallel linear), else its input.
struct LayerMatmul {
  double in = 0, out = 0;
  bool column = false;
};

// The matmuls the policy reruns in layer `l`, in the order they run (a zero
// one where the layer has no dense MLP); nullopt where the order was not
// read (MLA, routed experts): half of the forward's matmuls stand in.
std::optional<std::array<LayerMatmul, 3>> alternate_matmuls(const nds_layer_block& l);

}  // namespace ndsearch
