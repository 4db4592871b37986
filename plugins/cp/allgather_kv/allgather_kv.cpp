// SPDX-License-Identifier: Apache-2.0
// allgather_kv.cpp: the `cp-allgather-kv` CP attention model, as Llama 3's
// training describes it (Llama Team 2024, "The Llama 3 Herd of Models",
// §3.3.2): the sequence is cut into 2·cp chunks, rank i holding chunks i and
// 2·cp−1−i for load balance; before attention the ranks all-gather K and V,
// then each computes attention for its local Q chunks. The all-gather is
// exposed on the critical path; Llama 3 accepts that because GQA makes K and V
// much smaller than Q. docs/cp.md derives the bytes.
//
// Per layer and micro-batch on one device, T = mbs·s/cp tokens, e bytes per
// element, w = K + V width per token on one TP rank (MLA: the latent and RoPE
// key, see cp_model.hpp), kv = T·w·e:
//   all-gather: (cp−1)·kv forward, again backward (the gathered K and V are
//   not kept for backward but gathered anew);
//   reduce-scatter of dK, dV: (cp−1)·kv backward;
//   not overlapped; extra memory the other ranks' K and V, (cp−1)·kv.
#include <memory>

#include "plugins/cp/_common/cp_model.hpp"

namespace {

namespace cp = ndsearch::plugins::cp;

class AllGatherKv {
 public:
  static std::unique_ptr<AllGatherKv> compile(const nds_compile_input& input) {
    auto a = std::make_unique<AllGatherKv>();
    a->model_ = cp::CpModel::compile(input);
    return a;
  }

  void evaluate(ndsearch::sdk::CpOut& out) const noexcept {
    const cp::BlockShape* block = cp::admit(model_, out, cp::no_own_check);
    if (block == nullptr) return;
    const nds_strategy& s = out.strategy();
    const cp::Widths w = cp::widths(*block, s.tp);
    const double kv_bytes = cp::local_tokens(model_, s) * w.passed * model_.dtype_bytes();
    out.add_activation_bytes(
        cp::add_allgather(out, static_cast<uint32_t>(s.cp), static_cast<uint32_t>(s.tp), kv_bytes));
  }

 private:
  cp::CpModel model_;
};

class Plugin final : public ndsearch::sdk::CpAttentionPlugin<AllGatherKv> {
 public:
  Plugin() : ndsearch::sdk::CpAttentionPlugin<AllGatherKv>("allgather-kv") {}
};

}  // namespace

NDS_SDK_MODULE(Plugin, "cp-allgather-kv", "1.0.0",
               "CP attention: all-gather of K and V before attention (Llama 3), not overlapped")
