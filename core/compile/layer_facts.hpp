// SPDX-License-Identifier: Apache-2.0
// layer_facts.hpp: what every candidate's time reads of a model's layers and
// is the same for all of them, found once per run: which block each decoder
// layer belongs to, and the sums DESIGN §8.7's model FLOPs and HFU need
// (active parameters, attention keys, the FLOPs recompute runs again).
#pragma once

#include <ndsearch/nds_model.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

struct LayerFacts {
  // Per decoder layer in model order: its block, that block's index in
  // model.main.blocks, and one past the block's last layer.
  std::vector<const nds_layer_block*> block;  // into the model the facts were found on
  std::vector<uint32_t> block_index;
  std::vector<uint32_t> run_end;
  std::vector<uint32_t> mtp_blocks;  // model.main.blocks indices of MTP blocks
  // Summed over the decoder and MTP layers: active parameters, and the
  // attention's keys per query times its width (heads x head dim), as
  // DESIGN §8.7 counts them (every key of the sequence, or of a layer's
  // window) and under the causal mask (half of them, or the band's mean).
  double active_params = 0, attention_keys = 0, attention_keys_causal = 0;
  // Selective recompute's ops (NDS_RECOMPUTE_OP_*; none stated: the attention
  // core), and per decoder layer the FLOPs per token full and selective
  // recompute run again, summed over the layers before it.
  uint64_t selective_ops = 0;
  std::vector<std::array<double, 2>> recomputed_flops;
  double mtp_heads = 0;                 // MTP layers: each passes the output head again
  double learned_positions = 0;         // positions of a learned position table (0: none)
  double tower_flops_per_sequence = 0;  // the towers' forward FLOPs (towers.hpp)
};

// The facts of `model`'s layers; `block` points into `model`, which must
// outlive them.
LayerFacts layer_facts(const Model& model);

}  // namespace ndsearch
