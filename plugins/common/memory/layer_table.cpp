// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/memory/layer_table.hpp"

#include <algorithm>
#include <cstring>  // memcpy of the writer's nds_training
#include <string>

namespace ndsearch::plugins::memory {

LayerTable LayerTable::compile(const nds_model& model) {
  LayerTable t;
  for (size_t i = 0; i < model.block_count; ++i) {
    const auto& b = *reinterpret_cast<const nds_layer_block*>(
        reinterpret_cast<const char*>(model.blocks) + i * model.block_elem_size);
    if (b.kind == NDS_BLOCK_DECODER) {
      t.blocks.push_back(b);
      t.block_of_layer.insert(t.block_of_layer.end(), static_cast<size_t>(b.layers),
                              static_cast<uint32_t>(t.blocks.size() - 1));
    } else if (b.kind == NDS_BLOCK_MTP) {
      t.has_mtp = true;
      t.mtp = b;
      t.mtp_layers += b.layers;
    }
  }
  if (t.blocks.empty()) throw sdk::Error(NDS_INVALID_ARGUMENT, "the model has no decoder layer");
  t.hidden = static_cast<double>(t.blocks.front().hidden_size);
  const int64_t vocab =
      model.padded_vocab_size != NDS_UNKNOWN ? model.padded_vocab_size : model.vocab_size;
  if (vocab == NDS_UNKNOWN)
    throw sdk::Error(NDS_INVALID_ARGUMENT, "the vocabulary size (`vocab_size`) is unknown; set it");
  t.vocab = static_cast<double>(vocab);
  t.tokenizer_vocab = model.vocab_size != NDS_UNKNOWN ? static_cast<double>(model.vocab_size) : 0;
  t.tied_embeddings = model.tied_embeddings == 1;
  if (model.position_embedding == NDS_POSITION_LEARNED &&
      model.max_position_embeddings != NDS_UNKNOWN)
    t.learned_positions = static_cast<double>(model.max_position_embeddings);
  t.flash_attention = model.flash_attention != 0;  // unknown: on (DESIGN §8.5)
  if (model.training == nullptr)
    throw sdk::Error(NDS_INVALID_ARGUMENT, "the model has no training settings");
  // Only what the writer's struct holds (a 1.0 host's is shorter); the fields
  // past it read as 1.0 meant them (below).
  const nds_training& training = *model.training;
  std::memcpy(&t.training, &training, std::min(training.struct_size, sizeof(nds_training)));
  const nds_dtype compute =
      training.compute_dtype == NDS_DTYPE_UNKNOWN ? NDS_DTYPE_BF16 : training.compute_dtype;
  const bool has_activation = NDS_HAS_FIELD(&training, nds_training, activation_dtype) &&
                              training.activation_dtype != NDS_DTYPE_UNKNOWN &&
                              training.activation_dtype != NDS_DTYPE_NONE;
  t.activation_dtype = has_activation ? training.activation_dtype : compute;
  t.fp8_recipe =
      NDS_HAS_FIELD(&training, nds_training, fp8_recipe) && training.compute_dtype == NDS_DTYPE_FP8
          ? training.fp8_recipe
          : NDS_FP8_NONE;
  if (model.training->stated_strategy != nullptr) t.stated = *model.training->stated_strategy;
  return t;
}

}  // namespace ndsearch::plugins::memory
