// SPDX-License-Identifier: Apache-2.0
// per_op_checkpoint.cpp: what PyTorch's per-op selective checkpointing runs
// again of a layer under torchtitan's policy (NDS_RECOMPUTE_OP_ALTERNATE_MATMULS).
//
// torchtitan's "op" mode (9dec370, 2024-12: parallelisms/parallelize_llama.py
// _apply_ac_to_transformer_block) saves the outputs of aten.mm, the flash and
// efficient SDPA kernels, the functional reduce-scatter and abs/max, except
// every second mm of each block's forward (a counter per block); the backward
// runs every other op again. In a Llama block the matmuls run in the order
// wq, wk, wv, wo, w1, w3, w2 (models/llama/model.py: Attention, FeedForward),
// so wk, wo and w3 run again, with the norms, RoPE, the activation and the
// residual additions; the attention core does not.
#include "core/price/time/time_model.hpp"
#include "core/price/time/work.hpp"

namespace ndsearch {

using timing::d;

double TimeModel::alternate_matmuls_s(const nds_candidate& c, const nds_layer_block& l,
                                      const Work& w, const Span& span) const {
  // Layers whose order the policy was not read against (MLA, routed
  // experts): half of the forward's GEMM time.
  if (l.attention == NDS_ATTENTION_MLA || l.experts > 0) return w.forward_linear / 2;
  const nds_strategy& s = *c.strategy;
  const GemmRate& rate = kernels_.linear();
  const double tp = s.tp, tokens = span.tokens, h = d(l.hidden_size);
  // The second and fourth of the attention's matmuls: wk, and wo.
  double seconds = kernels_.gemm(rate, tokens, d(l.kv_heads * l.head_dim) / tp, h) +
                   kernels_.gemm(rate, tokens, h, d(l.heads * l.v_head_dim) / tp);
  // The MLP's second: w3 of a gated one (w1, w3, w2), w2 of another (w1, w2).
  if (l.ffn_hidden_size > 0) {
    const double f = d(l.ffn_hidden_size) / tp;
    seconds += l.ffn == NDS_FFN_SWIGLU ? kernels_.gemm(rate, tokens, f, h)
                                       : kernels_.gemm(rate, tokens, h, f);
  }
  return seconds;
}

}  // namespace ndsearch
