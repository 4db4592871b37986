// SPDX-License-Identifier: Apache-2.0
// ring.cpp: the `cp-ring` CP attention model, zig-zag load-balanced ring
// attention (Liu et al. 2023; Megatron-LM / Transformer Engine's P2P context
// parallelism): the sequence is cut into 2·cp chunks, rank i holding chunks i
// and 2·cp−1−i so every rank does the same causal work; each rank's K and V
// block goes round the cp ranks, passed cp−1 times, each transfer beside the
// attention of the block in hand. docs/cp.md derives the bytes.
//
// Per layer and micro-batch on one device, T = mbs·s/cp tokens, e bytes per
// element of the compute dtype, w = K + V width per token on one TP rank
// ((kv_heads/tp)·(head_dim + v_head_dim); MLA: the latent kv_lora_rank +
// qk_rope_head_dim, see cp_model.hpp):
//   block = T·w·e; forward (cp−1)·block in cp−1 send/recv steps; backward
//   2·(cp−1)·block (the blocks again and their gradients); extra memory the
//   two blocks of the double buffer.
#include <memory>

#include "plugins/cp/_common/cp_model.hpp"

namespace {

namespace cp = ndsearch::plugins::cp;

class Ring {
 public:
  static std::unique_ptr<Ring> compile(const nds_compile_input& input) {
    auto r = std::make_unique<Ring>();
    r->model_ = cp::CpModel::compile(input);
    return r;
  }

  void evaluate(ndsearch::sdk::CpOut& out) const noexcept {
    const cp::BlockShape* block = cp::admit(model_, out, cp::no_own_check);
    if (block == nullptr) return;
    const nds_strategy& s = out.strategy();
    const cp::Widths w = cp::widths(*block, s.tp);
    const double block_bytes = cp::local_tokens(model_, s) * w.passed * model_.dtype_bytes();
    out.add_activation_bytes(
        cp::add_ring(out, static_cast<uint32_t>(s.cp), static_cast<uint32_t>(s.tp), block_bytes));
  }

 private:
  cp::CpModel model_;
};

class Plugin final : public ndsearch::sdk::CpAttentionPlugin<Ring> {
 public:
  Plugin() : ndsearch::sdk::CpAttentionPlugin<Ring>("ring") {}
};

}  // namespace

NDS_SDK_MODULE(Plugin, "cp-ring", "1.0.0",
               "CP attention: zig-zag load-balanced ring attention, K and V blocks passed cp-1 "
               "times, overlapped")
