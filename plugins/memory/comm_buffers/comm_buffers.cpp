// SPDX-License-Identifier: Apache-2.0
// comm_buffers.cpp: the `comm-buffers` memory pass: the buffers collectives
// need on each pipeline rank, beside the tensors other passes count.
//  - DP: one gradient bucket in flight: Megatron-LM's DDP default bucket of
//    max(40M, 1M·dp) parameters, in the gradient dtype (at most the rank's
//    gradients). Counted beside the gradients on purpose: Megatron-LM's
//    buckets are views of its gradient buffer, PyTorch DDP's are copies unless
//    gradient_as_bucket_view; the cautious reading costs at most one bucket.
//  - TP with SP: the all-gathered layer input, s·mbs·h·b per micro-batch.
//  - EP: the all-to-all dispatch and combine buffers of the routed tokens,
//    2 · s·mbs·top-k·h·b.
//  - CP: one K,V block received while the next is sent (ring), 2 · 2·s/cp·mbs
//    ·kv_heads·head_dim·b.
//  - PP: a send and a receive buffer of s·mbs·h·b/(t if SP).
// The DP bucket and the PP buffers live through the step; of the others,
// which run at different moments of a layer, the largest is counted.
#include <ndsearch/sdk/memory.hpp>
#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>
#include <memory>

#include "plugins/common/memory/layer_table.hpp"

namespace {

using ndsearch::plugins::memory::LayerTable;

class CommBuffers {
 public:
  static std::unique_ptr<CommBuffers> compile(const nds_compile_input& input) {
    auto c = std::make_unique<CommBuffers>();
    const LayerTable t = LayerTable::compile(*input.model);
    if (t.training.seq_len == NDS_UNKNOWN)
      throw ndsearch::sdk::Error(NDS_INVALID_ARGUMENT,
                                 "the sequence length (`seq_len`) is unknown; set it");
    c->seq_ = static_cast<double>(t.training.seq_len);
    c->hidden_ = t.hidden;
    c->b_ = ndsearch::sdk::dtype_bytes(t.activation_dtype);  // what the TP/EP/CP/PP buffers carry
    c->grad_bytes_ = ndsearch::sdk::dtype_bytes(t.training.grads_dtype);
    for (const nds_layer_block& b : t.blocks) {
      c->top_k_ = std::max(c->top_k_, static_cast<double>(b.experts > 0 ? b.experts_per_token : 0));
      c->kv_width_ = std::max(c->kv_width_, static_cast<double>(b.kv_heads * b.head_dim));
      c->params_ += static_cast<double>(b.layers) * ndsearch::sdk::layer_parameters(b).total();
    }
    return c;
  }

  void evaluate(ndsearch::sdk::MemoryOut& out) const noexcept {
    const nds_strategy& s = out.strategy();
    const double tokens = static_cast<double>(s.mbs) * seq_ / s.cp;
    const double rank_params = params_ / (static_cast<double>(s.tp) * s.pp);
    const double bucket =
        s.dp * s.cp > 1 ? grad_bytes_ * std::min(std::max(40e6, 1e6 * s.dp), rank_params) : 0;
    const double tp_gather = s.tp > 1 && s.sp == 1 ? tokens * hidden_ * b_ : 0;
    const double ep_all_to_all = s.ep > 1 ? 2 * tokens * top_k_ * hidden_ * b_ : 0;
    const double cp_exchange = s.cp > 1 ? 2 * 2 * tokens * kv_width_ * b_ : 0;
    const double pp_buffers = s.pp > 1 ? 2 * tokens * hidden_ * b_ / (s.sp == 1 ? s.tp : 1) : 0;
    const double transient = std::max({tp_gather, ep_all_to_all, cp_exchange});
    for (int32_t rank = 0; rank < s.pp; ++rank)
      out.add(rank, NDS_MEMORY_COMM_BUFFERS, bucket + pp_buffers + transient);
  }

 private:
  double seq_ = 0, hidden_ = 0, b_ = 2, grad_bytes_ = 4, top_k_ = 0, kv_width_ = 0, params_ = 0;
};

class Plugin final : public ndsearch::sdk::MemoryPassPlugin<CommBuffers> {};

}  // namespace

NDS_SDK_MODULE(Plugin, "comm-buffers", "1.0.0",
               "Memory: buffers of the DP, TP/SP, EP, CP and PP collectives")
