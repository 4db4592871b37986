// SPDX-License-Identifier: Apache-2.0
// cp_model.hpp: what the context-parallel attention models (ring, ulysses,
// hybrid, allgather-kv) share: each block's attention shape copied at compile,
// its widths on one device under tensor parallelism, the sequence and dtype,
// the refusal checks of the reference system (nd_behaviour.md §7.1, checks 3
// to 5) and the collectives each building block issues. docs/cp.md gives the
// formulas with their derivations.
//
// Units: every byte count is per layer of a block, per micro-batch, on one
// device. A device holds T = mbs · seq_len / cp tokens of the sequence and,
// with TP, heads / tp query heads and kv_heads / tp KV heads (DESIGN §8.3:
// TP innermost, so the members of a CP group are tp ranks apart).
#pragma once

#include <ndsearch/nds_cp_attention.h>
#include <ndsearch/sdk/cp_attention.hpp>

#include <cstdint>
#include <vector>

namespace ndsearch::plugins::cp {

// One block's attention, as compile copies it from the model.
struct BlockShape {
  bool mla = false;
  double heads = 0;
  double kv_heads = 0;     // MLA: heads (each head has its own K and V once up-projected)
  double qk_head_dim = 0;  // width of one head of Q and K (MLA: qk_nope + qk_rope)
  double v_head_dim = 0;
  double latent = 0;  // MLA: kv_lora_rank + qk_rope_head_dim, the per-token KV cache; else 0
};

// Elements per token on one device (one TP rank) for one block.
struct Widths {
  double q = 0, k = 0, v = 0, o = 0;  // Q, K, V and the attention output, head-split by tp
  // What a ring or an all-gather of K and V passes per token. For GQA and MHA
  // that is K + V. For MLA it is the compressed KV latent plus the shared RoPE
  // key (kv_lora_rank + qk_rope_head_dim), not split by tp: every head's K and V
  // are rebuilt from it by the up-projection, so passing it is enough, and it
  // is far narrower than the materialised K and V (DeepSeek-V3: 512 + 64 = 576
  // per token against 128 heads · (192 + 128) = 40,960 before TP). The price is
  // one up-projection of each received block, compute this interface does not
  // carry; the ring passes the smallest tensor that lets a rank attend.
  double passed = 0;
};

// The model as the CP models need it; throws sdk::Error for what it lacks.
class CpModel {
 public:
  static CpModel compile(const nds_compile_input& input);

  int64_t seq_len() const noexcept { return seq_len_; }
  double dtype_bytes() const noexcept { return dtype_bytes_; }
  // The greatest common divisor of every block's KV heads: what one Ulysses
  // degree, shared by all layers, must divide after tp.
  int64_t kv_heads_gcd() const noexcept { return kv_heads_gcd_; }
  // nullptr when the host asks for a block the model does not have.
  const BlockShape* block(uint32_t index) const noexcept {
    return index < blocks_.size() ? &blocks_[index] : nullptr;
  }
  // The Ulysses degree of hybrid CP the config states (ABI 1.16,
  // MindSpeed's --ulysses-degree-in-cp); 0 when it states none.
  int32_t stated_ulysses_degree() const noexcept { return stated_ulysses_degree_; }
  // `block` as Ulysses' all-to-all moves it: with K and V repeated to the
  // query heads first (ABI 1.16, MindSpeed's
  // --kv-head-repeat-before-uly-alltoall) as many KV heads as query heads,
  // which the all-to-all carries and the heads check counts; else as it is.
  BlockShape ulysses_shape(const BlockShape& block) const noexcept {
    BlockShape s = block;
    if (kv_heads_repeated_) s.kv_heads = s.heads;
    return s;
  }
  // kv_heads_gcd() as Ulysses sees the heads (ulysses_shape).
  int64_t ulysses_kv_heads_gcd() const noexcept {
    return kv_heads_repeated_ ? heads_gcd_ : kv_heads_gcd_;
  }

 private:
  std::vector<BlockShape> blocks_;
  int64_t seq_len_ = 0;
  double dtype_bytes_ = 2;
  int64_t kv_heads_gcd_ = 0;
  int64_t heads_gcd_ = 0;
  int32_t stated_ulysses_degree_ = 0;
  bool kv_heads_repeated_ = false;
};

// The block's widths on one device under tensor parallelism `tp`.
Widths widths(const BlockShape& block, int32_t tp) noexcept;

// Tokens of one micro-batch on one device: mbs · seq_len / cp.
inline double local_tokens(const CpModel& model, const nds_strategy& s) noexcept {
  return static_cast<double>(s.mbs) * static_cast<double>(model.seq_len()) / s.cp;
}

// ---- Refusals (static text; nd_behaviour.md §7.1) -------------------------------
extern const char* const kNoSuchBlock;
extern const char* const kSequenceNotDivisible;  // check 3
extern const char* const kUlyssesHeads;          // check 4 (ulysses)
extern const char* const kDevicesInsufficient;   // check 5

// Check 3: the sequence splits into 2·cp load-balanced chunks, two per rank
// (zig-zag: rank i takes chunks i and 2·cp−1−i so causal work is even).
const char* sequence_refusal(int64_t seq_len, int32_t cp) noexcept;
// Check 4: Ulysses gives each of `degree` ranks a whole number of the KV
// heads a TP rank holds: kv_heads % (tp·degree) == 0. True when tp or degree
// is below 1 (check 5 refuses such a candidate).
bool heads_allow_ulysses(double kv_heads, int32_t tp, int32_t degree) noexcept;
// Check 5: tp·cp·pp devices fit in the dp·tp·pp·cp of the candidate: every
// degree at least 1. A candidate the core builds always passes (its device
// count is that product); this guards a malformed one.
const char* devices_refusal(const nds_strategy& s) noexcept;

// Checks 1, 3 and 5 of §7.1 around the algorithm's own (`own(block, s)`,
// check 4: a static reason or nullptr). The block to price, or nullptr when
// there is nothing to price: cp ≤ 1 (valid, nothing added) or a refusal,
// already written to `out`.
template <class OwnCheck>
const BlockShape* admit(const CpModel& model, sdk::CpOut& out, OwnCheck own) noexcept {
  const nds_strategy& s = out.strategy();
  if (s.cp <= 1) return nullptr;
  const BlockShape* block = model.block(out.block_index());
  const char* why = block == nullptr ? kNoSuchBlock : sequence_refusal(model.seq_len(), s.cp);
  if (why == nullptr) why = own(*block, s);
  if (why == nullptr) why = devices_refusal(s);
  if (why != nullptr) out.refuse(why);
  return why == nullptr ? block : nullptr;
}
inline const char* no_own_check(const BlockShape&, const nds_strategy&) noexcept {
  return nullptr;
}

// ---- Building blocks -----------------------------------------------------------
// Overlap constants (docs/cp.md §Constants):
// A ring's transfers run beside the attention of the block in hand (Liu et al.
// 2023, "Ring Attention"; Transformer Engine's P2P context parallelism), hidden
// where a block's attention outlasts its transfer: true for long local
// sequences (compute grows as T², the transfer as T), not for short ones. The
// model cannot weigh the two without the core's compute and link models, so it
// states the reference system's figure: half hidden (nd_behaviour.md §7.3,
// "exposed = 50 %").
constexpr double kRingOverlap = 0.5;
// An all-to-all of Ulysses is on the critical path: attention needs every
// query head's whole sequence before it starts and the output projection needs
// the returned output (Jacobs et al. 2023, "DeepSpeed Ulysses", §3).
constexpr double kAllToAllOverlap = 0.0;
// Llama 3's all-gather of K and V "is exposed in the critical path" (Llama
// Team 2024, "The Llama 3 Herd of Models", §3.3.2); so is its backward
// reduce-scatter of dK and dV, which the layer's input gradient waits on.
constexpr double kAllGatherOverlap = 0.0;
// Staging: a ring double-buffers, holding the block it attends to and the one
// arriving, so transfer and compute overlap (Transformer Engine's P2P ring).
constexpr double kRingBuffers = 2.0;

// A ring of `degree` ranks `stride` apart passing `block_bytes` (one device's
// K and V block) degree−1 times forward; backward passes the blocks again and
// their gradients dK, dV along with them (degree−1 steps, twice the bytes).
// Returns the working set it adds: kRingBuffers blocks.
double add_ring(sdk::CpOut& out, uint32_t degree, uint32_t stride, double block_bytes) noexcept;

// Ulysses over `degree` ranks `stride` apart: an all-to-all of Q, K and V
// before attention (`qkv_bytes` held per device before it) and of the output
// after (`o_bytes`); backward, the same two on the gradients. A device keeps
// 1/degree of what it holds and sends the rest. Returns the working set: the
// receive buffer of Q, K and V while the sent tensors are still alive.
double add_ulysses(sdk::CpOut& out, uint32_t degree, uint32_t stride, double qkv_bytes,
                   double o_bytes) noexcept;

// Llama 3's all-gather of K and V over `degree` ranks `stride` apart
// (`kv_bytes` held per device): the gather forward, again in the backward (the
// gathered copy is not kept), and a reduce-scatter of dK, dV. Returns the
// working set: the other ranks' K and V, (degree−1)·kv_bytes.
double add_allgather(sdk::CpOut& out, uint32_t degree, uint32_t stride, double kv_bytes) noexcept;

}  // namespace ndsearch::plugins::cp
