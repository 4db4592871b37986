// SPDX-License-Identifier: Apache-2.0
#include "core/model/params.hpp"

namespace ndsearch {
namespace {

double d(int64_t v) { return static_cast<double>(v); }

// One FFN of width f on a model of width h: GeLU has two matrices (up, down),
// SwiGLU three (gate, up, down); biases on each when the layer has them.
double ffn_parameters(const nds_layer_block& b, int64_t width) {
  const double h = d(b.hidden_size), f = d(width);
  const double matrices = b.ffn == NDS_FFN_SWIGLU ? 3 : 2;
  const double biases = b.linear_bias == 1 ? (matrices - 1) * f + h : 0;
  return matrices * h * f + biases;
}

}  // namespace

LayerParameters layer_parameters(const nds_layer_block& b) {
  LayerParameters p;
  const double h = d(b.hidden_size), heads = d(b.heads), kv = d(b.kv_heads), hd = d(b.head_dim);
  if (b.attention == NDS_ATTENTION_MLA) {
    // DeepSeek-V2/V3 (arXiv 2405.04434 §2.1): queries through a rank-q_lora
    // compression (with its norm) or directly; keys and values through a
    // rank-kv_lora compression (with its norm) plus a shared RoPE key.
    const double qk = d(b.qk_nope_head_dim + b.qk_rope_head_dim);
    const double q = b.q_lora_rank > 0 ? h * d(b.q_lora_rank) + d(b.q_lora_rank) + d(b.q_lora_rank) * heads * qk
                                       : h * heads * qk;
    const double kv_a = h * d(b.kv_lora_rank + b.qk_rope_head_dim) + d(b.kv_lora_rank);
    const double kv_b = d(b.kv_lora_rank) * heads * d(b.qk_nope_head_dim + b.v_head_dim);
    p.attention = q + kv_a + kv_b + heads * d(b.v_head_dim) * h;
  } else {
    const double q = heads * hd, k = kv * hd;
    p.attention = h * (q + 2 * k) + q * h;  // Q, K, V and output projections
    if (b.linear_bias == 1) p.attention += q + 2 * k + h;
    else if (b.qkv_bias == 1) p.attention += q + 2 * k;
  }
  if (b.qk_norm == 1) p.attention += 2 * hd;  // one norm over head_dim for Q, one for K
  p.norms = (b.norm == NDS_NORM_LAYERNORM ? 2 : 1) * 2 * h;  // LayerNorm has a bias too
  if (b.ffn_hidden_size > 0) p.dense_mlp = ffn_parameters(b, b.ffn_hidden_size);
  if (b.experts > 0) {
    p.router = h * d(b.experts);
    const double expert = ffn_parameters(b, b.moe_ffn_hidden_size);
    p.routed_experts = d(b.experts) * expert;
    p.routed_active = d(b.experts_per_token) * expert;
  }
  if (b.shared_experts > 0) p.shared_experts = d(b.shared_experts) * ffn_parameters(b, b.shared_expert_ffn_hidden_size);
  return p;
}

std::optional<ParameterCounts> count_parameters(const Model& m, std::string* why) {
  auto fail = [&](const char* what) -> std::optional<ParameterCounts> {
    if (why != nullptr) *why = what;
    return std::nullopt;
  };
  const nds_layer_block* first = m.first_decoder();
  if (first == nullptr) return fail("the model has no decoder layer");
  for (const ModelBlock& b : m.main.blocks)
    if (b.c.ffn == NDS_UNKNOWN && (b.c.ffn_hidden_size > 0 || b.c.experts > 0 || b.c.shared_experts > 0))
      return fail("the FFN kind (gelu or swiglu) is unknown");
  if (m.main.vocab_size == NDS_UNKNOWN) return fail("vocab_size is unknown");
  if (m.main.tied_embeddings == NDS_UNKNOWN) return fail("whether the embeddings are tied is unknown");
  ParameterCounts c;
  const double h = d(first->hidden_size);
  const double embedding = d(m.main.vocab_size) * h;
  double outside_layers = embedding * (m.main.tied_embeddings == 1 ? 1 : 2);
  outside_layers += (first->norm == NDS_NORM_LAYERNORM ? 2 : 1) * h;  // the final norm
  if (m.main.position_embedding == NDS_POSITION_LEARNED) {
    if (m.main.max_position_embeddings == NDS_UNKNOWN) return fail("max_position_embeddings is unknown");
    outside_layers += d(m.main.max_position_embeddings) * h;
  }
  c.total = c.active = outside_layers;
  for (const ModelBlock& b : m.main.blocks) {
    const LayerParameters p = layer_parameters(b.c);
    if (b.c.kind == NDS_BLOCK_DECODER) {
      c.total += d(b.c.layers) * p.total();
      c.active += d(b.c.layers) * p.active();
    } else if (b.c.kind == NDS_BLOCK_MTP) {
      // DeepSeek-V3 (arXiv 2412.19437 §2.2): each MTP module adds two RMSNorms
      // and a projection from [h; h] to h to a transformer layer.
      c.mtp += d(b.c.layers) * (p.total() + 2 * h + 2 * h * h);
    }
  }
  for (const ModelPart& tower : m.submodels) {
    double params = 0;
    for (const ModelBlock& b : tower.blocks) params += d(b.c.layers) * layer_parameters(b.c).total();
    c.submodels.push_back(params);
  }
  return c;
}

}  // namespace ndsearch
