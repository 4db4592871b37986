// SPDX-License-Identifier: Apache-2.0
#include "plugins/cp/_common/cp_model.hpp"

#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>
#include <numeric>
#include <string>

namespace ndsearch::plugins::cp {

const char* const kNoSuchBlock = "block_index is past the model's blocks (a host error)";
const char* const kSequenceNotDivisible =
    "sequence length must be divisible by 2·cp (each CP rank takes two of 2·cp load-balanced "
    "chunks)";
const char* const kUlyssesHeads = "KV heads must be divisible by tp·cp (Ulysses splits heads)";
const char* const kDevicesInsufficient =
    "tp·cp·pp must not exceed the devices: every degree of the candidate must be at least 1";

CpModel CpModel::compile(const nds_compile_input& input) {
  if (input.model == nullptr)
    throw sdk::Error(NDS_INVALID_ARGUMENT, "the compile input has no model");
  const nds_model& model = *input.model;
  if (model.training == nullptr)
    throw sdk::Error(NDS_INVALID_ARGUMENT,
                     "the model has no training settings (sequence length, dtypes)");
  CpModel m;
  m.seq_len_ = model.training->seq_len;
  if (m.seq_len_ == NDS_UNKNOWN || m.seq_len_ <= 0)
    throw sdk::Error(
        NDS_INVALID_ARGUMENT,
        "the sequence length (`seq_len`) is unknown; context parallelism splits it: set it");
  // K and V travel in the activation dtype (ABI 1.1: bf16 around fp8 GEMMs),
  // the compute dtype for a 1.0 writer.
  const nds_training& t = *model.training;
  const bool has_activation = NDS_HAS_FIELD(&t, nds_training, activation_dtype) &&
                              t.activation_dtype != NDS_DTYPE_UNKNOWN &&
                              t.activation_dtype != NDS_DTYPE_NONE;
  m.dtype_bytes_ = sdk::dtype_bytes(has_activation ? t.activation_dtype : t.compute_dtype);
  if (m.dtype_bytes_ <= 0) m.dtype_bytes_ = 4;  // "none" is no compute dtype: the cautious fp32
  for (size_t i = 0; i < model.block_count; ++i) {
    const auto& b = *reinterpret_cast<const nds_layer_block*>(
        reinterpret_cast<const char*>(model.blocks) + i * model.block_elem_size);
    if (b.heads == NDS_UNKNOWN || b.heads <= 0 || b.kv_heads == NDS_UNKNOWN || b.kv_heads <= 0 ||
        b.head_dim == NDS_UNKNOWN || b.head_dim <= 0)
      throw sdk::Error(NDS_INVALID_ARGUMENT, "block " + std::to_string(i) +
                                                 " has no attention heads, KV heads or head_dim");
    BlockShape s;
    s.mla = b.attention == NDS_ATTENTION_MLA;
    s.heads = static_cast<double>(b.heads);
    s.kv_heads = static_cast<double>(b.kv_heads);
    s.qk_head_dim = static_cast<double>(b.head_dim);  // MLA: qk_nope + qk_rope (finalize)
    s.v_head_dim = static_cast<double>(b.v_head_dim > 0 ? b.v_head_dim : b.head_dim);
    if (s.mla) s.latent = static_cast<double>(b.kv_lora_rank + b.qk_rope_head_dim);
    m.blocks_.push_back(s);
    m.kv_heads_gcd_ = std::gcd(m.kv_heads_gcd_, b.kv_heads);
    m.heads_gcd_ = std::gcd(m.heads_gcd_, b.heads);
  }
  // 1.16: what the trainer states of Ulysses (a writer before states neither).
  if (NDS_HAS_FIELD(&t, nds_training, cp_ulysses_degree) && t.cp_ulysses_degree > 0)
    m.stated_ulysses_degree_ = t.cp_ulysses_degree;
  m.kv_heads_repeated_ = sdk::states_kv_heads_repeated(t);
  if (m.blocks_.empty()) throw sdk::Error(NDS_INVALID_ARGUMENT, "the model has no layer blocks");
  return m;
}

Widths widths(const BlockShape& block, int32_t tp) noexcept {
  const double t = tp >= 1 ? tp : 1;
  // A TP rank holds kv_heads / tp KV heads; at least one, as Megatron
  // replicates KV heads when tp exceeds them (the core's checks keep tp a
  // divisor of the KV heads, so this floor is a guard).
  const double heads = block.heads / t, kv = std::max(block.kv_heads / t, 1.0);
  Widths w;
  w.q = heads * block.qk_head_dim;
  w.k = kv * block.qk_head_dim;
  w.v = kv * block.v_head_dim;
  w.o = heads * block.v_head_dim;
  w.passed = block.mla ? block.latent : w.k + w.v;
  return w;
}

const char* sequence_refusal(int64_t seq_len, int32_t cp) noexcept {
  return seq_len % (2 * static_cast<int64_t>(cp)) != 0 ? kSequenceNotDivisible : nullptr;
}

bool heads_allow_ulysses(double kv_heads, int32_t tp, int32_t degree) noexcept {
  if (tp < 1 || degree < 1) return true;  // check 5 refuses such a candidate
  const auto kv = static_cast<int64_t>(kv_heads);
  return kv % (static_cast<int64_t>(tp) * degree) == 0;
}

const char* devices_refusal(const nds_strategy& s) noexcept {
  return s.dp < 1 || s.tp < 1 || s.pp < 1 || s.cp < 1 || s.mbs < 1 ? kDevicesInsufficient : nullptr;
}

namespace {
nds_cp_comm comm(nds_collective kind, uint32_t degree, uint32_t stride, double forward,
                 double backward, uint32_t forward_steps, uint32_t backward_steps,
                 double overlap) noexcept {
  nds_cp_comm c{};
  c.struct_size = sizeof(nds_cp_comm);
  c.collective = kind;
  c.group_size = degree;
  c.group_stride = stride;
  c.forward_bytes = forward;
  c.backward_bytes = backward;
  c.forward_steps = forward_steps;
  c.backward_steps = backward_steps;
  c.overlap_fraction = overlap;
  return c;
}
}  // namespace

double add_ring(sdk::CpOut& out, uint32_t degree, uint32_t stride, double block_bytes) noexcept {
  if (degree <= 1) return 0;
  const double forward = (degree - 1) * block_bytes;
  // Backward: each K, V block goes round again (degree − 1 transfers) and its
  // gradient travels with it, accumulating, until it reaches its owner (degree
  // − 1 transfers more, sent in the same steps): twice the forward bytes.
  out.add(comm(NDS_COLLECTIVE_SEND_RECV, degree, stride, forward, 2 * forward, degree - 1,
               degree - 1, kRingOverlap));
  return kRingBuffers * block_bytes;
}

double add_ulysses(sdk::CpOut& out, uint32_t degree, uint32_t stride, double qkv_bytes,
                   double o_bytes) noexcept {
  if (degree <= 1) return 0;
  const double sent = static_cast<double>(degree - 1) / degree;  // the share that leaves the device
  // Q, K and V go out in one step (the three all-to-alls are issued together);
  // backward, dQ, dK and dV come back the same way.
  out.add(comm(NDS_COLLECTIVE_ALL_TO_ALL, degree, stride, sent * qkv_bytes, sent * qkv_bytes, 1, 1,
               kAllToAllOverlap));
  // The output returns to the sequence split; backward, its gradient dO goes
  // to the head split before the attention backward.
  out.add(comm(NDS_COLLECTIVE_ALL_TO_ALL, degree, stride, sent * o_bytes, sent * o_bytes, 1, 1,
               kAllToAllOverlap));
  return qkv_bytes;
}

double add_allgather(sdk::CpOut& out, uint32_t degree, uint32_t stride, double kv_bytes) noexcept {
  if (degree <= 1) return 0;
  const double others = (degree - 1) * kv_bytes;  // a ring all-gather sends degree − 1 chunks
  out.add(comm(NDS_COLLECTIVE_ALL_GATHER, degree, stride, others, others, 1, 1, kAllGatherOverlap));
  out.add(comm(NDS_COLLECTIVE_REDUCE_SCATTER, degree, stride, 0, others, 0, 1, kAllGatherOverlap));
  return others;
}

}  // namespace ndsearch::plugins::cp
