// SPDX-License-Identifier: Apache-2.0
#include "core/model/towers.hpp"

#include <algorithm>
#include <cmath>

namespace ndsearch {
namespace {

double d(int64_t v) {
  return static_cast<double>(v);
}

}  // namespace

sdk::TowerShape tower_shape(const ModelPart& tower) {
  sdk::TowerShape s;
  s.patch_inputs = d(tower.patch_inputs);
  s.patch_bias = tower.patch_bias == 1;
  s.position_table = d(tower.position_table);
  s.merge_patches = d(tower.merge_patches);
  s.out_hidden_size = d(tower.out_hidden_size);
  s.mergers = tower.mergers;
  if (!tower.blocks.empty()) {
    s.hidden = d(tower.blocks.front().c.hidden_size);
    s.layernorm = tower.blocks.front().c.norm == NDS_NORM_LAYERNORM;
  }
  return s;
}

sdk::TowerParameters tower_parameters(const ModelPart& tower) {
  sdk::TowerParameters p = sdk::tower_parameters(tower_shape(tower));
  for (const ModelBlock& b : tower.blocks) sdk::add_tower_layers(p, b.c);
  return p;
}

sdk::TowerTokens tower_tokens(const Model& model, const ModelPart& tower) {
  return sdk::tower_tokens(tower_shape(tower), model.training);
}

double tower_forward_flops(const Model& model, const ModelPart& tower) {
  const sdk::TowerTokens k = tower_tokens(model, tower);
  const sdk::TowerParameters p = tower_parameters(tower);
  double flops =
      2 * k.patches * (p.layers_split + p.patch_embedding) + 2 * k.merged * p.mergers_split;
  for (const ModelBlock& b : tower.blocks)
    flops += d(b.c.layers) * 4 * k.patches * sdk::tower_attention_keys(b.c, k) *
             d(b.c.heads * b.c.head_dim);
  return flops;
}

double tower_layer_ratio(const Model& model) {
  const nds_layer_block* layer = model.first_decoder();
  if (model.submodels.empty() || layer == nullptr || model.training.seq_len <= 0) return 0;
  double towers = 0;
  for (const ModelPart& tower : model.submodels) towers += tower_forward_flops(model, tower);
  const double seq = d(model.training.seq_len);
  const double decoder = 2 * seq * sdk::layer_parameters(*layer).active() +
                         2 * seq * seq * d(layer->heads * layer->head_dim);
  return decoder > 0 ? towers / decoder : 0;
}

uint32_t tower_stage_layers(const Model& model, int32_t cp, uint32_t layers) {
  return static_cast<uint32_t>(std::llround(
      std::min(model.tower_layer_ratio * std::max(cp, 1), static_cast<double>(layers))));
}

}  // namespace ndsearch
