// SPDX-License-Identifier: Apache-2.0
#include "core/compile/layer_facts.hpp"

#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>

#include "core/compile/per_op_policy.hpp"
#include "core/model/towers.hpp"

namespace ndsearch {
namespace {

double d(int64_t v) {
  return static_cast<double>(v);
}

// The keys each query of layer `l` attends to as DESIGN §8.7 counts them:
// every key of the sequence, or of the layer's window.
double attention_keys(const nds_layer_block& l, double seq) {
  return l.attention_window > 0 ? std::min(d(l.attention_window), seq) : seq;
}

// The decoder layers' blocks (block, block_index, run_end) and the MTP blocks.
void index_layers(const Model& model, LayerFacts& f) {
  for (size_t i = 0; i < model.main.blocks.size(); ++i) {
    const nds_layer_block& b = model.main.blocks[i].c;
    if (b.kind == NDS_BLOCK_MTP) f.mtp_blocks.push_back(static_cast<uint32_t>(i));
    if (b.kind != NDS_BLOCK_DECODER) continue;
    const auto end = static_cast<uint32_t>(f.block.size() + static_cast<size_t>(b.layers));
    f.block.insert(f.block.end(), static_cast<size_t>(b.layers), &b);
    f.block_index.insert(f.block_index.end(), static_cast<size_t>(b.layers),
                         static_cast<uint32_t>(i));
    f.run_end.resize(f.block.size(), end);
  }
}

void add_attention_keys(const nds_layer_block& l, double seq, double layers, LayerFacts& f) {
  // Both sums weigh the keys per query by the attention's width: the counted
  // keys, and those the causal mask leaves (half of them, or the band's mean
  // keys per query, window - window²/2s).
  const double keys = attention_keys(l, seq), width = layers * d(l.heads * l.head_dim);
  f.attention_keys += keys * width;
  f.attention_keys_causal += (keys < seq ? sdk::band_mean_keys(keys, seq) : seq / 2) * width;
}

// What torchtitan's per-op policy runs again of a layer's matmuls, per token
// (per_op_policy.hpp): 2 FLOPs a weight of each; half the layer's where the
// order was not read.
double alternate_matmul_flops(const nds_layer_block& l, const sdk::LayerParameters& p) {
  const auto matmuls = alternate_matmuls(l);
  if (!matmuls) return p.active();
  double flops = 0;
  for (const LayerMatmul& m : *matmuls) flops += 2 * m.in * m.out;
  return flops;
}

// The decoder layers' active parameters and keys, and the FLOPs recompute reruns, summed.
void sum_decoder_flops(const Model& model, double seq, LayerFacts& f) {
  f.selective_ops = sdk::selective_recompute_ops(model.training);
  f.recomputed_flops.assign(f.block.size() + 1, {});
  for (size_t i = 0; i < f.block.size(); ++i) {
    const nds_layer_block* l = f.block[i];
    const sdk::LayerParameters p = sdk::layer_parameters(*l);
    f.active_params += p.active();
    add_attention_keys(*l, seq, 1, f);
    // What HFU counts again per token when the layer is recomputed: a forward
    // is 2 FLOPs per parameter, the attention core 4·s·h_attn (scores and
    // values, full s^2 as DESIGN §8.7 counts it, a window's keys where the
    // layer has one); selective only its ops'.
    const double core = 4 * attention_keys(*l, seq) * d(l->heads * l->head_dim);
    double selective = 0;
    if ((f.selective_ops & NDS_RECOMPUTE_OP_CORE_ATTENTION) != 0) selective += core;
    if ((f.selective_ops & NDS_RECOMPUTE_OP_MLP) != 0) selective += 2 * p.dense_mlp;
    if ((f.selective_ops & NDS_RECOMPUTE_OP_MOE) != 0 && l->experts > 0)
      selective += 2 * (p.router + p.routed_active + p.shared_experts);
    if ((f.selective_ops & NDS_RECOMPUTE_OP_ALTERNATE_MATMULS) != 0)
      selective += alternate_matmul_flops(*l, p);
    f.recomputed_flops[i + 1] = {f.recomputed_flops[i][0] + 2 * p.active() + core,
                                 f.recomputed_flops[i][1] + selective};
  }
}

// The MTP modules' parameters, keys and output-head passes, after the decoder's.
void add_mtp_flops(const Model& model, double seq, LayerFacts& f) {
  // MTP modules (DeepSeek-V3 §2.2) train on every token too: each a layer plus
  // its [h; h] -> h projection, and another pass through the output head.
  for (uint32_t i : f.mtp_blocks) {
    const nds_layer_block& b = model.main.blocks[i].c;
    const double h = d(b.hidden_size), layers = d(b.layers);
    f.active_params += layers * (sdk::layer_parameters(b).active() + 2 * h * h);
    add_attention_keys(b, seq, layers, f);
    f.mtp_heads += layers;
  }
}

}  // namespace

LayerFacts layer_facts(const Model& model) {
  LayerFacts f;
  index_layers(model, f);
  if (model.main.position_embedding == NDS_POSITION_LEARNED &&
      model.main.max_position_embeddings != NDS_UNKNOWN)
    f.learned_positions = d(model.main.max_position_embeddings);
  // What DESIGN §8.7's model FLOPs need of the layers, the same for every candidate.
  const double seq = d(model.training.seq_len);
  sum_decoder_flops(model, seq, f);
  for (const ModelPart& tower : model.submodels)
    f.tower_flops_per_sequence += tower_forward_flops(model, tower);
  add_mtp_flops(model, seq, f);
  return f;
}

}  // namespace ndsearch
