// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/memory/layer_table.hpp"

#include <string>

namespace ndsearch::plugins::memory {

LayerTable LayerTable::compile(const nds_model& model) {
  LayerTable t;
  for (size_t i = 0; i < model.block_count; ++i) {
    const auto& b = *reinterpret_cast<const nds_layer_block*>(reinterpret_cast<const char*>(model.blocks) +
                                                              i * model.block_elem_size);
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
  const int64_t vocab = model.padded_vocab_size != NDS_UNKNOWN ? model.padded_vocab_size : model.vocab_size;
  if (vocab == NDS_UNKNOWN)
    throw sdk::Error(NDS_INVALID_ARGUMENT, "the vocabulary size is unknown; give --vocab-size");
  t.vocab = static_cast<double>(vocab);
  t.tied_embeddings = model.tied_embeddings == 1;
  if (model.position_embedding == NDS_POSITION_LEARNED && model.max_position_embeddings != NDS_UNKNOWN)
    t.learned_positions = static_cast<double>(model.max_position_embeddings);
  t.flash_attention = model.flash_attention != 0;  // unknown: on (DESIGN §8.5)
  if (model.training == nullptr) throw sdk::Error(NDS_INVALID_ARGUMENT, "the model has no training settings");
  t.training = *model.training;
  if (model.training->stated_strategy != nullptr) t.stated = *model.training->stated_strategy;
  return t;
}

}  // namespace ndsearch::plugins::memory
