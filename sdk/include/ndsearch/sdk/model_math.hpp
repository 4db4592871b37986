// SPDX-License-Identifier: Apache-2.0
// model_math.hpp: what a model's shapes imply, for the core and for plugins
// alike: the parameters of one layer by part, and the bytes of a dtype.
#ifndef NDSEARCH_SDK_MODEL_MATH_HPP_INCLUDED
#define NDSEARCH_SDK_MODEL_MATH_HPP_INCLUDED

#include <ndsearch/nds_model.h>

#include <cmath>

#include <cstdint>
#include <string_view>

namespace ndsearch::sdk {

// One layer's parameters, by part (counts, not bytes).
struct LayerParameters {
  double attention = 0;       // projections (+ MLA's compression norms, QK norms, biases)
  double norms = 0;           // the layer's two norms
  double dense_mlp = 0;       // a dense FFN
  double router = 0;          // MoE gate
  double routed_experts = 0;  // all routed experts
  double routed_active = 0;   // experts_per_token of them
  double shared_experts = 0;

  double total() const {
    return attention + norms + dense_mlp + router + routed_experts + shared_experts;
  }
  double active() const {
    return attention + norms + dense_mlp + router + routed_active + shared_experts;
  }
};

namespace detail {
inline double as_double(int64_t v) {
  return static_cast<double>(v);
}

// One FFN of width f: GeLU has two matrices (up, down), SwiGLU three (gate,
// up, down); biases on each when the layer has them.
inline double ffn_parameters(const nds_layer_block& b, int64_t width) {
  const double h = as_double(b.hidden_size), f = as_double(width);
  const double matrices = b.ffn == NDS_FFN_SWIGLU ? 3 : 2;
  const double biases = b.linear_bias == 1 ? (matrices - 1) * f + h : 0;
  return matrices * h * f + biases;
}
}  // namespace detail

// The parameters of one layer of a finalized block (no field NDS_UNKNOWN).
inline LayerParameters layer_parameters(const nds_layer_block& b) {
  using detail::as_double;
  LayerParameters p;
  const double h = as_double(b.hidden_size), heads = as_double(b.heads), kv = as_double(b.kv_heads);
  const double hd = as_double(b.head_dim);
  if (b.attention == NDS_ATTENTION_MLA) {
    // DeepSeek-V2/V3 (arXiv 2405.04434 §2.1): queries through a rank-q_lora
    // compression (with its norm) or directly; keys and values through a
    // rank-kv_lora compression (with its norm) plus a shared RoPE key.
    const double qk = as_double(b.qk_nope_head_dim + b.qk_rope_head_dim);
    const double ql = as_double(b.q_lora_rank), kvl = as_double(b.kv_lora_rank);
    const double q = b.q_lora_rank > 0 ? h * ql + ql + ql * heads * qk : h * heads * qk;
    const double kv_a = h * (kvl + as_double(b.qk_rope_head_dim)) + kvl;
    const double kv_b = kvl * heads * as_double(b.qk_nope_head_dim + b.v_head_dim);
    p.attention = q + kv_a + kv_b + heads * as_double(b.v_head_dim) * h;
  } else {
    const double q = heads * hd, k = kv * hd;
    p.attention = h * (q + 2 * k) + q * h;  // Q, K, V and output projections
    if (b.linear_bias == 1)
      p.attention += q + 2 * k + h;
    else if (b.qkv_bias == 1)
      p.attention += q + 2 * k;
  }
  if (b.qk_norm == 1) p.attention += 2 * hd;  // one norm over head_dim for Q, one for K
  p.norms = (b.norm == NDS_NORM_LAYERNORM ? 2 : 1) * 2 * h;  // LayerNorm has a bias too
  if (b.ffn_hidden_size > 0) p.dense_mlp = detail::ffn_parameters(b, b.ffn_hidden_size);
  if (b.experts > 0) {
    p.router = h * as_double(b.experts);
    const double expert = detail::ffn_parameters(b, b.moe_ffn_hidden_size);
    p.routed_experts = as_double(b.experts) * expert;
    p.routed_active = as_double(b.experts_per_token) * expert;
  }
  if (b.shared_experts > 0)
    p.shared_experts =
        as_double(b.shared_experts) * detail::ffn_parameters(b, b.shared_expert_ffn_hidden_size);
  return p;
}

// Bytes of one element; fp32 for an unknown dtype (the cautious reading).
inline double dtype_bytes(nds_dtype dtype) {
  switch (dtype) {
    case NDS_DTYPE_NONE: return 0;
    case NDS_DTYPE_BF16:
    case NDS_DTYPE_FP16: return 2;
    case NDS_DTYPE_FP8: return 1;
    default: return 4;  // fp32, tf32 (stored as fp32), unknown
  }
}

// Bytes per parameter the optimizer keeps beside the parameters and their
// gradients, as the shipped passes and the time model count them: a master
// copy when it is wider than the parameters (fp32 for bf16 or fp16
// parameters unless the config states otherwise; none when they are as
// wide; its residual alone when it reuses the parameters' storage, ABI
// 1.9), and the states (Adam's two moments unless stated), each in the
// optimizer's dtype.
struct OptimizerBytes {
  double master = 0, states = 0;
  double total() const { return master + states; }
};
inline OptimizerBytes optimizer_bytes(const nds_training& t) {
  OptimizerBytes b;
  const double params = dtype_bytes(t.params_dtype);
  if (t.master_dtype == NDS_DTYPE_UNKNOWN || t.master_dtype == t.params_dtype)
    b.master = params < 4 && t.master_dtype == NDS_DTYPE_UNKNOWN ? 4 : 0;
  else
    b.master = dtype_bytes(t.master_dtype);
  // 1.9: a master kept as the parameter plus a residual (MindSpeed's
  // --reuse-fp32-param: bf16 + 16 bits) costs what the parameter does not hold.
  if (NDS_HAS_FIELD(&t, nds_training, master_reuses_params) && t.master_reuses_params == 1)
    b.master = b.master > params ? b.master - params : 0;
  const double states =
      t.optimizer_states == NDS_UNKNOWN ? 2 : static_cast<double>(t.optimizer_states);
  b.states = states * dtype_bytes(t.optimizer_dtype);
  return b;
}

// The ops selective recompute rebuilds (NDS_RECOMPUTE_OP_*): the config's,
// else the attention core (Korthikanti et al. 2022 §5).
inline uint64_t selective_recompute_ops(const nds_training& t) {
  return t.recompute_ops != 0 ? t.recompute_ops : NDS_RECOMPUTE_OP_CORE_ATTENTION;
}

// Bytes per vocabulary entry and token the loss holds at its peak
// (nds_training.loss_bytes_per_logit, ABI 1.8): the config's trainer's, else
// 4, a fused cross entropy that keeps its fp32 softmax and writes the
// gradient in place (Megatron-Core's vocab-parallel cross entropy).
inline double loss_bytes_per_logit(const nds_training& t) {
  return t.loss_bytes_per_logit > 0 ? t.loss_bytes_per_logit : 4.0;
}

// The bytes the loss moves per vocabulary entry and token, forward and
// backward (nds_training.loss_*_bytes_per_logit, ABI 1.15): the config's
// trainer's, else a fused cross entropy's: Megatron-Core's with
// --cross-entropy-loss-fusion (megatron/core/fusions/fused_cross_entropy.py),
// three fused kernels forward: the cast of the bf16 logits to fp32 (2 + 4),
// the subtraction of the max with the exponential (4 + 4), the division
// (4 + 4); one backward that scales the kept softmax and writes the bf16
// gradient (4 + 2).
// A host before 1.15 states neither.
struct LossTraffic {
  double forward, backward;
};
inline constexpr LossTraffic kFusedLossTraffic{22.0, 6.0};
inline LossTraffic loss_traffic(const nds_training& t) {
  LossTraffic l = kFusedLossTraffic;
  if (NDS_HAS_FIELD(&t, nds_training, loss_forward_bytes_per_logit) &&
      t.loss_forward_bytes_per_logit > 0)
    l.forward = t.loss_forward_bytes_per_logit;
  if (NDS_HAS_FIELD(&t, nds_training, loss_backward_bytes_per_logit) &&
      t.loss_backward_bytes_per_logit > 0)
    l.backward = t.loss_backward_bytes_per_logit;
  return l;
}

// ABI 1.16: the config states that the trainer repeats K and V to the query
// heads before Ulysses' all-to-all (MindSpeed's
// --kv-head-repeat-before-uly-alltoall); false from a writer before 1.16.
inline bool states_kv_heads_repeated(const nds_training& t) {
  return NDS_HAS_FIELD(&t, nds_training, cp_kv_heads_repeated) && t.cp_kv_heads_repeated == 1;
}
// Whether CP attention `algorithm` runs with K and V so repeated: MindSpeed
// repeats them under Ulysses and hybrid CP alone (should_kv_repeat_before_uly).
inline bool kv_heads_repeated(const nds_training& t, std::string_view algorithm) {
  return states_kv_heads_repeated(t) && (algorithm == "ulysses" || algorithm == "hybrid");
}

// The mean keys a query of a sliding window of `window` keys attends to
// under the causal mask over `seq` tokens: the first `window` queries see
// the keys before them, the rest `window` each, seq·window - window²/2 in
// all.
inline double band_mean_keys(double window, double seq) {
  return window - window * window / (2 * seq);
}

// The vocabulary rows the embedding and head hold at tensor-parallel degree
// `tp`: `vocab` (the tokenizer's) padded to a multiple of
// nds_training.vocab_multiple_per_tp × tp where the trainer pads so (ABI
// 1.11; Megatron-LM: megatron/training/tokenizer/tokenizer.py,
// _vocab_size_with_padding), else `padded` (the config's padded size, or
// the tokenizer's where it states none). `t` may be a copy zeroed past an
// older writer's struct.
inline double vocab_rows(double vocab, double padded, const nds_training& t, int64_t tp) {
  if (t.vocab_multiple_per_tp <= 0 || vocab <= 0 || tp <= 0) return padded;
  const double multiple = static_cast<double>(t.vocab_multiple_per_tp) * static_cast<double>(tp);
  return std::ceil(vocab / multiple) * multiple;
}

// How fully sharded data parallelism holds what it gathers, for a pipeline
// of `pp` stages (nds_training.fsdp_holding, ABI 1.8): torchtitan's rule
// resolved to the holding it picks.
inline nds_fsdp_holding fsdp_holding(nds_fsdp_holding stated, int32_t pp) {
  if (stated == NDS_FSDP2_KEEP_UNDER_PP) return pp > 1 ? NDS_FSDP2_KEEP : NDS_FSDP2_RESHARD;
  return stated;
}

// The routed rows the most loaded of `ep` expert-parallel ranks takes in MoE
// layer `b`, over an even share (ABI 1.13), the one rule the time model and
// the memory passes price the slowest EP rank by: padded to capacity
// (moe_padded), every expert takes its capacity, capacity_factor; else the
// routing's hottest rank (nds_training.expert_rank_load at ep; 1 where
// balanced or not stated), at most the capacity where tokens beyond it are
// dropped (capacity_factor > 0). A host or writer before 1.13 reads as
// unpadded and balanced.
inline double routed_rank_load(const nds_training& t, const nds_layer_block& b, int64_t ep) {
  const double capacity = b.capacity_factor > 0 ? b.capacity_factor : 0;
  const bool padded = NDS_HAS_FIELD(&b, nds_layer_block, moe_padded) && b.moe_padded == 1;
  if (capacity > 0 && padded) return capacity;
  double hottest = 1;
  if (NDS_HAS_FIELD(&t, nds_training, expert_rank_load_count) && t.expert_rank_load != nullptr &&
      ep > 0 && static_cast<size_t>(ep) < t.expert_rank_load_count && t.expert_rank_load[ep] > 0)
    hottest = t.expert_rank_load[ep];
  return capacity > 0 && capacity < hottest ? capacity : hottest;
}

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_MODEL_MATH_HPP_INCLUDED
