// SPDX-License-Identifier: Apache-2.0
// hybrid.cpp: the `cp-hybrid` CP attention model, Ulysses inside ring
// attention (USP: Fang and Zhao 2024, "A Unified Sequence Parallelism
// Approach for Long Context Generative AI"; Megatron-LM's hierarchical "a2a+p2p"
// context parallelism): the cp ranks form u-way Ulysses groups (innermost,
// stride tp, as the all-to-all is neither overlapped nor light and wants the
// fastest links) inside r = cp/u-way rings (stride tp·u).
//
// u is the largest divisor of cp that the KV heads allow after tp (every
// block's KV heads divisible by tp·u), so hybrid is Ulysses where the heads
// allow it and falls back to ring where they allow none; the user's
// `--cp-ulysses N` (plugin option "cp-ulysses") or the config (ABI 1.16,
// MindSpeed's --ulysses-degree-in-cp) states u instead, and a candidate whose
// cp or KV heads do not fit it is refused. Where the trainer repeats K and V
// to the query heads before the all-to-all (ABI 1.16, MindSpeed's
// --kv-head-repeat-before-uly-alltoall), the heads check counts query heads
// and the all-to-all and the rings carry K and V as wide as Q.
//
// Per layer and micro-batch on one device, T = mbs·s/cp tokens, e bytes:
//   Ulysses over u (as cp-ulysses with cp → u): all-to-all of Q, K, V
//   (u−1)/u·T·(q+k+v)·e and of the output (u−1)/u·T·o·e, each both ways;
//   then each device holds u·T tokens of heads/(tp·u) heads, so its ring block
//   is u·T·(k+v)/u·e = T·(k+v)·e, passed r−1 times (as cp-ring with cp → r).
//   With u = 1 the ring is cp-ring exactly (MLA passes the latent) unless
//   K and V are repeated (then it passes the repeated ones); with u > 1
//   an MLA ring passes the up-projected, head-split K and V (the latent is
//   shared by all heads and cannot be split by heads).
//   Extra memory: the larger of the two stages' working sets (the all-to-all
//   buffers are free before the ring starts).
#include <algorithm>
#include <memory>
#include <string>

#include "plugins/cp/_common/cp_model.hpp"

namespace {

namespace cp = ndsearch::plugins::cp;

const char* const kDegreeNotDivisor =
    "cp must be divisible by N, the Ulysses degree (`cp-ulysses`, else the config's): hybrid runs "
    "cp/N rings of N-way Ulysses";
const char* const kHeadsForDegree =
    "KV heads must be divisible by tp·N, N the Ulysses degree (`cp-ulysses`, else the config's): "
    "Ulysses splits heads";

// The value of --cp-ulysses, 0 when not given; throws for one that is not a
// positive integer.
int32_t stated_ulysses_degree() {
  const auto text = ndsearch::sdk::host().option("cp-ulysses");
  if (!text) return 0;
  size_t used = 0;
  long value = 0;
  try {
    value = std::stol(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text->size() || value < 1 || value > (1L << 20))
    throw ndsearch::sdk::Error(
        NDS_INVALID_ARGUMENT, "the Ulysses degree (`cp-ulysses=" + *text +
                                  "`) is not a positive integer; give the Ulysses degree of hybrid "
                                  "context parallelism, e.g. 4");
  return static_cast<int32_t>(value);
}

class Hybrid {
 public:
  static std::unique_ptr<Hybrid> compile(const nds_compile_input& input) {
    auto h = std::make_unique<Hybrid>();
    h->model_ = cp::CpModel::compile(input);
    h->stated_u_ = stated_ulysses_degree();
    return h;
  }

  // The Ulysses degree for `s`: the one --cp-ulysses states, else the
  // config's (ABI 1.16), else the largest divisor of cp whose tp·u divides
  // every block's KV heads as Ulysses moves them (1 always qualifies).
  int32_t ulysses_degree(const nds_strategy& s) const noexcept {
    if (stated_u_ > 0) return stated_u_;
    if (model_.stated_ulysses_degree() > 0) return model_.stated_ulysses_degree();
    for (int32_t u = s.cp; u > 1; --u)
      if (s.cp % u == 0 &&
          cp::heads_allow_ulysses(static_cast<double>(model_.ulysses_kv_heads_gcd()), s.tp, u))
        return u;
    return 1;
  }

  void evaluate(ndsearch::sdk::CpOut& out) const noexcept {
    const cp::BlockShape* block =
        cp::admit(model_, out, [this](const cp::BlockShape& b, const nds_strategy& s) {
          const int32_t u = ulysses_degree(s);
          if (s.cp % u != 0) return kDegreeNotDivisor;
          return cp::heads_allow_ulysses(model_.ulysses_shape(b).kv_heads, s.tp, u)
                     ? nullptr
                     : kHeadsForDegree;
        });
    if (block == nullptr) return;
    const nds_strategy& s = out.strategy();
    const int32_t u = ulysses_degree(s);
    const int32_t r = s.cp / u;
    // MindSpeed repeats K and V under hybrid CP whatever u, 1 included
    // (should_kv_repeat_before_uly): the rings pass what was repeated.
    const cp::Widths w = cp::widths(model_.ulysses_shape(*block), s.tp);
    const double per_element = cp::local_tokens(model_, s) * model_.dtype_bytes();
    const auto stride = static_cast<uint32_t>(s.tp);
    const double a2a = cp::add_ulysses(out, static_cast<uint32_t>(u), stride,
                                       per_element * (w.q + w.k + w.v), per_element * w.o);
    const double ring_width = u == 1 ? w.passed : w.k + w.v;
    const double ring = cp::add_ring(out, static_cast<uint32_t>(r),
                                     stride * static_cast<uint32_t>(u), per_element * ring_width);
    out.add_activation_bytes(std::max(a2a, ring));
  }

 private:
  cp::CpModel model_;
  int32_t stated_u_ = 0;  // --cp-ulysses N; 0 = choose
};

class Plugin final : public ndsearch::sdk::CpAttentionPlugin<Hybrid> {
 public:
  Plugin() : ndsearch::sdk::CpAttentionPlugin<Hybrid>("hybrid") {}
};

}  // namespace

NDS_SDK_MODULE(
    Plugin, "cp-hybrid", "1.0.0",
    "CP attention: Ulysses inside ring attention (USP); the Ulysses degree (`cp-ulysses`), "
    "the config's, or one the KV heads allow")
