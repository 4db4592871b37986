// SPDX-License-Identifier: Apache-2.0
// ulysses.cpp: the `cp-ulysses` CP attention model, DeepSpeed-Ulysses
// (Jacobs et al. 2023): an all-to-all turns the sequence split of Q, K and V
// into a head split (each rank then holds the whole sequence for heads/(tp·cp)
// heads), attention runs locally, and a second all-to-all returns the output
// to the sequence split. Refuses KV heads not divisible by tp·cp (reference
// nd_behaviour.md §7.1 check 4). docs/cp.md derives the bytes.
//
// Per layer and micro-batch on one device, T = mbs·s/cp tokens, e bytes per
// element, q, k, v, o the widths on one TP rank (heads/tp or kv_heads/tp
// heads, heads/tp for K and V too where the trainer repeats them to the query
// heads first: ABI 1.16; MLA: the up-projected per-head Q, K, V), a device
// sending (cp−1)/cp of what it holds:
//   all-to-all 1: (cp−1)/cp·T·(q + k + v)·e forward, the same backward (dQ, dK, dV);
//   all-to-all 2: (cp−1)/cp·T·o·e forward, the same backward (dO);
//   neither overlapped; extra memory the receive buffer of Q, K, V: T·(q+k+v)·e.
#include <memory>

#include "plugins/cp/_common/cp_model.hpp"

namespace {

namespace cp = ndsearch::plugins::cp;

class Ulysses {
 public:
  static std::unique_ptr<Ulysses> compile(const nds_compile_input& input) {
    auto u = std::make_unique<Ulysses>();
    u->model_ = cp::CpModel::compile(input);
    return u;
  }

  void evaluate(ndsearch::sdk::CpOut& out) const noexcept {
    const cp::BlockShape* block =
        cp::admit(model_, out, [this](const cp::BlockShape& b, const nds_strategy& s) {
          return cp::heads_allow_ulysses(model_.ulysses_shape(b).kv_heads, s.tp, s.cp)
                     ? nullptr
                     : cp::kUlyssesHeads;  // check 4
        });
    if (block == nullptr) return;
    const nds_strategy& s = out.strategy();
    const cp::Widths w = cp::widths(model_.ulysses_shape(*block), s.tp);
    const double per_element = cp::local_tokens(model_, s) * model_.dtype_bytes();
    out.add_activation_bytes(cp::add_ulysses(out, static_cast<uint32_t>(s.cp),
                                             static_cast<uint32_t>(s.tp),
                                             per_element * (w.q + w.k + w.v), per_element * w.o));
  }

 private:
  cp::CpModel model_;
};

class Plugin final : public ndsearch::sdk::CpAttentionPlugin<Ulysses> {
 public:
  Plugin() : ndsearch::sdk::CpAttentionPlugin<Ulysses>("ulysses") {}
};

}  // namespace

NDS_SDK_MODULE(Plugin, "cp-ulysses", "1.0.0",
               "CP attention: DeepSpeed-Ulysses, all-to-all of Q, K, V and the output; KV heads "
               "divide by tp*cp")
