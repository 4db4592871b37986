// SPDX-License-Identifier: Apache-2.0
// torchtitan's "op" mode (9dec370, 2024-12: parallelisms/parallelize_llama.py
// _apply_ac_to_transformer_block) saves the outputs of aten.mm, the flash and
// efficient SDPA kernels, the functional reduce-scatter and abs/max, except
// every second mm of each block's forward (a counter per block); the backward
// runs every other op again. In a Llama block the matmuls run in the order
// wq, wk, wv, wo, w1, w3, w2 (models/llama/model.py: Attention, FeedForward),
// so wk, wo and w3 run again (w2 of an MLP without a gate: w1, w2), with the
// norms, RoPE, the activation and the residual additions; the attention core
// does not.
#include "core/compile/per_op_policy.hpp"

#include <algorithm>
#include <cstdint>

namespace ndsearch {

std::optional<std::array<LayerMatmul, 3>> alternate_matmuls(const nds_layer_block& l) {
  if (l.attention == NDS_ATTENTION_MLA || l.experts > 0) return std::nullopt;
  const auto h = static_cast<double>(l.hidden_size);
  const auto f = static_cast<double>(std::max<int64_t>(l.ffn_hidden_size, 0));
  const LayerMatmul wk{h, static_cast<double>(l.kv_heads * l.head_dim), true};
  const LayerMatmul wo{static_cast<double>(l.heads * l.v_head_dim), h, false};
  const LayerMatmul mlp = l.ffn == NDS_FFN_SWIGLU ? LayerMatmul{h, f, true}    // w3
                                                  : LayerMatmul{f, h, false};  // w2
  return std::array<LayerMatmul, 3>{wk, wo, mlp};
}

}  // namespace ndsearch
