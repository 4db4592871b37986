// SPDX-License-Identifier: Apache-2.0
// memory_bound.cpp: a layer's memory-bound work (norms, residuals, dropout,
// the MLP's activation, RoPE, the MoE permutation) as the trainer's kernels
// run it: fused, each kernel reading its inputs and writing its output once,
// or as PyTorch eager ops (nds_training.elementwise_kernels, ABI 1.18).
#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>

#include "core/price/time/time_model.hpp"
#include "core/price/time/work.hpp"

namespace ndsearch {
namespace {

using timing::d;

// Fused traffic per token and layer, in elements of the activation dtype,
// forward (backward moves about twice as much): each of the two norms reads
// and writes h (4h), the two residual additions read 2h and write h (6h),
// each dropout reads and writes h and writes a mask (about 2.5h each); the
// activation reads the up projection's output(s) and writes its own (3 per
// element of a gated MLP's width, 2 of another's); RoPE reads and writes
// each rotated element (2).
constexpr double kNormHidden = 4;
constexpr double kResidualHidden = 6;
constexpr double kDropoutHidden = 2 * 2.5;
constexpr double kGatedPerWidth = 3, kPlainPerWidth = 2;
constexpr double kRopePerElement = 2;

// PyTorch eager, as torchtitan's Llama runs it without compile (torchtitan
// 9dec370, 2024-12: models/norms.py RMSNorm, models/llama/model.py
// apply_rotary_emb, repeat_kv and FeedForward), in bytes of a bf16
// activation's elements (fp32 intermediates count two):
// - RMSNorm: the cast to fp32 (read 2, write 4), the square (4 + 4), the
//   mean (4), the product with the reciprocal root (4 + 4), the cast back
//   (4 + 2), the weight's product (2 + 2): 36 bytes, 18 elements a norm;
// - RoPE: the cast to fp32 (2 + 4), the complex product (4 + 4), the cast
//   back (4 + 2): 20 bytes, 10 elements per rotated element;
// - SwiGLU: silu(w1 x) (2 + 2) and its product with w3 x (2 + 2 + 2): 5
//   elements per element of the MLP's width (a plain activation: 2);
// - grouped-query attention: K and V expanded to every query head and
//   copied (repeat_kv: read each KV element, write each head's);
// - the residual additions and dropout as fused.
constexpr double kEagerNormHidden = 2 * 18;
constexpr double kEagerRopePerElement = 10;
constexpr double kEagerGatedPerWidth = 5;

}  // namespace

void TimeModel::memory_bound(Work& w, const nds_candidate& c, const nds_layer_block& l,
                             double qk_rotated, double routed_elements, Rebuilt& rebuilt,
                             const Span& span) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp, b = compiled_.settings.activation_bytes;
  const double tokens = span.tokens;
  const double h = d(l.hidden_size);
  const double split = s.sp == 1 ? tp : 1;  // tokens the norms see are split with SP
  const bool gated = l.ffn == NDS_FFN_SWIGLU;
  const bool eager = compiled_.model.training.elementwise_kernels == NDS_ELEMENTWISE_EAGER;
  const double norms = eager ? kEagerNormHidden : kNormHidden;
  double elements =
      tokens * h * (norms + kResidualHidden + (l.hidden_dropout > 0 ? kDropoutHidden : 0)) / split;
  const double per_width =
      tokens * (gated ? (eager ? kEagerGatedPerWidth : kGatedPerWidth) : kPlainPerWidth);
  const double dense = per_width * d(std::max<int64_t>(l.ffn_hidden_size, 0)) / tp;
  const double routed = l.experts > 0
                            ? per_width * d(l.experts_per_token) * d(l.moe_ffn_hidden_size) / tp *
                                  sdk::routed_rank_load(compiled_.routing, l, s.ep)
                            : 0;
  const double shared = per_width * d(std::max<int64_t>(l.shared_expert_ffn_hidden_size, 0)) *
                        d(std::max<int64_t>(l.shared_experts, 0)) / tp;
  elements += dense + routed + shared;
  if (compiled_.model.main.position_embedding == NDS_POSITION_ROPE)
    elements += (eager ? kEagerRopePerElement : kRopePerElement) * tokens * qk_rotated;
  if (eager && l.attention != NDS_ATTENTION_MLA && l.kv_heads > 0 && l.kv_heads < l.heads)
    elements += 2 * tokens * d(l.kv_heads + l.heads) * d(l.head_dim) / tp;  // repeat_kv
  elements += routed_elements;
  const double memory = kernels_.memory(elements * b);
  w.forward += memory;
  w.backward += 2 * memory;
  // What selective recompute's ops run again of it: the two norms, the
  // dense MLP's activation, the MoE layer's activations and permutation, the
  // routed experts' activation (Megatron's moe_act); PyTorch's per-op policy
  // saves none of it.
  rebuilt.memory_bound = memory;
  if (selective_recomputes(NDS_RECOMPUTE_OP_NORM))
    rebuilt.norms = kernels_.memory(tokens * h * norms / split * b);
  rebuilt.dense_mlp += kernels_.memory(dense * b);
  rebuilt.moe += kernels_.memory((routed + shared + routed_elements) * b);
  rebuilt.expert_activation = kernels_.memory(routed * b);
  rebuilt.dense_activation = kernels_.memory(dense * b);
  rebuilt.shared_activation = kernels_.memory(shared * b);
}

}  // namespace ndsearch
