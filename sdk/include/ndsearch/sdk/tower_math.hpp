// SPDX-License-Identifier: Apache-2.0
// tower_math.hpp: what a vision tower's shapes imply (ABI 1.6), for the core
// and for plugins alike: its parameters by how they shard, its patches per
// sequence and the keys each query of one of its layers attends to.
//
// A tower (Qwen2.5-VL, Qwen3-VL; their modelling code in transformers):
// a patch embedding (a Conv3d whose kernel is its stride: one linear of
// patch_inputs -> hidden per patch), learned positions where it has a table,
// encoder layers (layer_parameters), and mergers that take merge_patches
// neighbouring patches to one language-model token: a norm, a linear of
// merge_patches x hidden to itself and one to out_hidden_size, with biases.
#ifndef NDSEARCH_SDK_TOWER_MATH_HPP_INCLUDED
#define NDSEARCH_SDK_TOWER_MATH_HPP_INCLUDED

#include <ndsearch/nds_model.h>
#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ndsearch::sdk {

// A tower's fields past its blocks, and the width and norm of its layers.
struct TowerShape {
  double patch_inputs = 0;
  bool patch_bias = false;
  double position_table = 0;
  double merge_patches = 0;
  double out_hidden_size = 0;
  double mergers = 0;
  double hidden = 0;
  bool layernorm = false;  // its norms have a bias (LayerNorm), else RMSNorm
};

// A tower's parameters by how the language model's TP shards them (the
// tower runs at the same TP as the language model).
struct TowerParameters {
  double layers_split = 0;     // the layers' projections and MLPs: / tp
  double layers_whole = 0;     // the layers' norms: on every TP rank
  double patch_embedding = 0;  // whole on every TP rank
  double positions = 0;        // whole on every TP rank
  double mergers_split = 0;    // the mergers' linears: / tp
  double mergers_whole = 0;    // the mergers' norms
  double layers() const { return layers_split + layers_whole; }
  double mergers_total() const { return mergers_split + mergers_whole; }
  double split() const { return layers_split + mergers_split; }
  double whole() const { return layers_whole + patch_embedding + positions + mergers_whole; }
  double total() const { return split() + whole(); }
};

// Patches of one sequence's images, and how the tower sees them.
struct TowerTokens {
  double patches = 0;            // per sequence: image tokens x merge_patches
  double patches_per_image = 0;  // the span of a layer attending to its whole image
  double merged = 0;             // per sequence: the image tokens the mergers write
};

namespace detail {
inline const nds_layer_block& tower_block(const nds_model& tower, size_t i) {
  return *reinterpret_cast<const nds_layer_block*>(reinterpret_cast<const char*>(tower.blocks) +
                                                   i * tower.block_elem_size);
}
}  // namespace detail

// Tower `i` of a model (its submodels, submodel_elem_size apart).
inline const nds_model& submodel(const nds_model& model, size_t i) {
  return *reinterpret_cast<const nds_model*>(reinterpret_cast<const char*>(model.submodels) +
                                             i * model.submodel_elem_size);
}

// The shape of a tower as the host hands it; a host before 1.6 has none of
// its fields (zeros: layers only).
inline TowerShape tower_shape(const nds_model& tower) {
  TowerShape s;
  if (NDS_HAS_FIELD(&tower, nds_model, mergers)) {
    s.patch_inputs = static_cast<double>(tower.patch_inputs);
    s.patch_bias = tower.patch_bias == 1;
    s.position_table = static_cast<double>(tower.position_table);
    s.merge_patches = static_cast<double>(tower.merge_patches);
    s.out_hidden_size = static_cast<double>(tower.out_hidden_size);
    s.mergers = tower.mergers;
  }
  if (tower.block_count > 0) {
    const nds_layer_block& first = detail::tower_block(tower, 0);
    s.hidden = static_cast<double>(first.hidden_size);
    s.layernorm = first.norm == NDS_NORM_LAYERNORM;
  }
  return s;
}

// What the patch embedding, the positions and the mergers hold; the caller
// adds each block's layers (add_tower_layers).
inline TowerParameters tower_parameters(const TowerShape& s) {
  TowerParameters p;
  const double c = s.hidden, merged = s.merge_patches * c, norm = s.layernorm ? 2 : 1;
  p.patch_embedding = s.patch_inputs * c + (s.patch_bias ? c : 0);
  p.positions = s.position_table * c;
  if (s.mergers > 0 && s.merge_patches > 0) {
    p.mergers_split =
        s.mergers * (merged * merged + merged + merged * s.out_hidden_size + s.out_hidden_size);
    // The first merger normalises each patch (width c), the others the merged vector.
    p.mergers_whole = norm * (c + (s.mergers - 1) * merged);
  }
  return p;
}
inline void add_tower_layers(TowerParameters& p, const nds_layer_block& b) {
  const LayerParameters l = layer_parameters(b);
  const double layers = static_cast<double>(b.layers);
  p.layers_split += layers * (l.attention + l.dense_mlp);
  p.layers_whole += layers * l.norms;
}
inline TowerParameters tower_parameters(const nds_model& tower) {
  TowerParameters p = tower_parameters(tower_shape(tower));
  for (size_t i = 0; i < tower.block_count; ++i) add_tower_layers(p, detail::tower_block(tower, i));
  return p;
}

// Per sequence, from the training's image tokens (0 when not stated or from
// a host before 1.6); images_per_sample not stated reads as 1.
inline TowerTokens tower_tokens(const TowerShape& s, const nds_training& t) {
  TowerTokens k;
  if (!NDS_HAS_FIELD(&t, nds_training, images_per_sample) || t.image_tokens <= 0) return k;
  const double merge = s.merge_patches > 0 ? s.merge_patches : 1;
  const double images = t.images_per_sample > 0 ? static_cast<double>(t.images_per_sample) : 1;
  k.merged = static_cast<double>(t.image_tokens);
  k.patches = k.merged * merge;
  k.patches_per_image = k.patches / images;
  return k;
}

// The keys each query of a tower layer attends to: its window, else its
// whole image (bidirectional, within the image).
inline double tower_attention_keys(const nds_layer_block& b, const TowerTokens& k) {
  const int64_t window =
      NDS_HAS_FIELD(&b, nds_layer_block, attention_window) ? b.attention_window : 0;
  return window > 0 ? std::min(static_cast<double>(window), k.patches_per_image)
                    : k.patches_per_image;
}

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_TOWER_MATH_HPP_INCLUDED
