// SPDX-License-Identifier: Apache-2.0
// layer_table.hpp: what every memory pass compiles from a model: its decoder
// layers in model order (each pointing to its block), the MTP block, the
// embedding and training settings, and where a candidate's chunks put the
// embedding and the output head.
#pragma once

#include <ndsearch/nds_candidate.h>
#include <ndsearch/sdk/plugin.hpp>

#include <cstdint>
#include <vector>

#include <ndsearch/sdk/model_math.hpp>

namespace ndsearch::plugins::memory {

struct LayerTable {
  std::vector<nds_layer_block> blocks;   // decoder blocks, model order (copies)
  std::vector<uint32_t> block_of_layer;  // decoder layer i -> index in `blocks`
  bool has_mtp = false;
  nds_layer_block mtp{};  // the MTP block, when has_mtp
  int64_t mtp_layers = 0;
  double hidden = 0;
  double vocab = 0;  // padded where the trainer pads (at the config's tp), else the tokenizer's
  double tokenizer_vocab = 0;  // vocab_size; 0 where only the padded size is stated
  bool tied_embeddings = false;
  double learned_positions = 0;  // max_position_embeddings when positions are learned
  bool flash_attention = true;
  nds_training training{};  // as far as the writer's struct_size reaches; zero past it
  nds_strategy stated{};
  // The dtype of the activations kept for backward and of the buffers that
  // carry them: activation_dtype where the writer has it (1.1) and states it,
  // else compute_dtype (1.0's meaning), else bf16.
  nds_dtype activation_dtype = NDS_DTYPE_BF16;
  int32_t fp8_recipe = NDS_FP8_NONE;  // NDS_FP8_*; NONE unless compute is fp8 (and a 1.0 writer)

  // Throws sdk::Error naming what the model lacks.
  static LayerTable compile(const nds_model& model);

  uint32_t layers() const { return static_cast<uint32_t>(block_of_layer.size()); }
  const nds_layer_block& block(uint32_t layer) const { return blocks[block_of_layer[layer]]; }

  // The embedding's and head's rows at tensor-parallel degree `tp` over
  // `vocab` (the rows their coefficients were compiled with): padded anew
  // per tp where the trainer pads so (sdk::vocab_rows), else 1.
  double vocab_scale(int64_t tp) const {
    return vocab > 0 ? ndsearch::sdk::vocab_rows(tokenizer_vocab, vocab, training, tp) / vocab : 1;
  }
};

// Chunk `index` ([rank·vpp + chunk]) holds the embedding / the output head
// (and MTP layers) when it holds layer 0 / the last layer.
inline bool holds_embedding(const nds_candidate& c, size_t index) {
  return c.chunk_first_layer[index] == 0 && c.chunk_layers[index] > 0;
}
inline bool holds_head(const nds_candidate& c, size_t index, uint32_t layers) {
  return c.chunk_layers[index] > 0 && c.chunk_first_layer[index] + c.chunk_layers[index] == layers;
}

}  // namespace ndsearch::plugins::memory
