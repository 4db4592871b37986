// SPDX-License-Identifier: Apache-2.0
// layer_work.cpp: one layer's work for one micro-batch on one device: its
// GEMMs and attention kernels, its memory-bound kernels, and its TP, EP and
// CP communication, exposed and hidden (what the time model sums per rank).
#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>
#include <tuple>

#include "core/hardware/topology.hpp"
#include "core/price/time/collectives.hpp"
#include "core/price/time/moe_dispatch.hpp"
#include "core/price/time/time_model.hpp"
#include "core/price/time/work.hpp"

namespace ndsearch {
namespace {

using timing::d;

// How much of the TP collectives chunked overlap hides at best: 75 % in the
// forward, 50 % in the backward (DoMiNO in nanotron, 62 % overall:
// huggingface/nanotron PR 284, microbenchmarks.md §6; no figure for
// Transformer Engine's userbuffers is published). The first chunk, the
// synchronisation between chunks and the GEMMs slowed by the SMs the
// exchange takes stay on the critical path.
constexpr double kTpHiddenForward = 0.75;
constexpr double kTpHiddenBackward = 0.50;

// What stays exposed of `moved` seconds of exchange pipelined with `gemms`
// seconds of GEMMs: at least the share the pipelining cannot hide, and all
// that outlasts the GEMMs.
double pipelined_exposed(double moved, double gemms, double most_hidden) {
  return std::max(moved * (1 - most_hidden), moved - gemms);
}

// MindSpeed's MC2 (mindspeed_llm v1.0.RC3.0 31100602, core/tensor_parallel/
// ascend_turbo/mc2_linears_seq_parallel.py) fuses the forward's all-gather
// into the column-parallel GEMM (npu_all_gather_base_mm) and the
// reduce-scatter into the row-parallel one (npu_mm_reduce_scatter_base);
// the kernels pipeline the GEMM of one rank's block with the exchange of the
// next (CANN's MC2 best practice: T = max(T_mm, T_comm) + the first tile).
// The gathered GEMM starts on the local block, so its exchange can hide
// whole; the reduce-scatter's last of tp - 1 steps follows the last GEMM
// block: of a pair of equal collectives, 1 / (2 (tp - 1)) stays exposed. In
// the backward the row-parallel GEMM fuses its all-gather the same way and
// the column-parallel one overlaps its all-gather with the input-gradient
// GEMM and its reduce-scatter with the weight-gradient GEMM (async, as
// Megatron's): nothing exposed but what the GEMMs do not cover.
double mc2_hidden_forward(uint64_t tp) {
  return 1 - 0.5 / static_cast<double>(tp - 1);
}

// The backward's TP exchange as Megatron's linear layers run it
// (megatron/core/tensor_parallel/layers.py, core_r0.6.0,
// LinearWithGradAccumulationAndAsyncCommunication.backward; Transformer
// Engine's Linear and MindSpeed's MC2 linears do the same). With SP the
// column-parallel linear keeps only its sequence shard, so the backward
// gathers its input again for the weight gradient, under the input-gradient
// GEMM, and reduce-scatters that gradient under the weight-gradient GEMM;
// the row-parallel linear's gather of its output gradient waits. Without SP
// the input gradient's all-reduce runs under the weight-gradient GEMM
// (Megatron-LM since 2021-09, 3f65246911). Of a pass's all-gather and
// reduce-scatter the backward thus moves 1.5x, of which the async part is
// the pass's size; of its all-reduce, the same, all async.
struct TpBackward {
  double moved = 0;  // what the backward exchanges
  double waits = 0;  // of it, what it waits for whatever overlaps
};

TpBackward tp_backward(double per_pass, bool sequence_parallel, bool async, bool inputs_kept) {
  if (!async) return {per_pass, per_pass};
  if (!sequence_parallel) return {per_pass, 0};
  // A trainer that keeps the gathered input (PyTorch DTensor TP) gathers
  // nothing again.
  return {(inputs_kept ? 1.0 : 1.5) * per_pass, 0.5 * per_pass};
}

// The backward's exposed TP exchange under Transformer Engine's userbuffers:
// the pass's pair pipelined with its GEMMs as the forward's is (at most the
// measured share hides), and the input's second gather overlapped whole with
// the input-gradient GEMM (ub_bulk_dgrad), under what the pair leaves of the
// GEMMs.
double tp_userbuffers_backward(double pair, double regather, double gemms) {
  const double pair_exposed = pipelined_exposed(pair, gemms, kTpHiddenBackward);
  const double left = std::max(0.0, gemms - (pair - pair_exposed));
  return pair_exposed + pipelined_exposed(regather, left, 1.0);
}

// Whether a layer's shapes depend on its routing, so that the host waits
// for them every micro-batch (TrainerOverheads::moe_expert_s).
bool routing_shaped(const nds_layer_block& l) {
  return l.experts > 0 && !(l.capacity_factor > 0 && l.moe_padded == 1);
}

// The routed experts one device holds.
double local_experts(const nds_layer_block& l, const nds_strategy& s) {
  return std::max(1.0, d(l.experts) / s.ep);
}

// The attention core's shape for one micro-batch on this device: TP degree,
// bytes per activation element, keys per query, tokens, heads, kernel
// instances (heads / tp per sequence, mbs sequences) and dims per head.
struct CoreShape {
  double tp, b, seq, tokens, heads, instances, qk_dim, v_dim;
};

// The attention core's seconds: its kernels or GEMMs, and an unfused softmax's passes.
struct CoreSeconds {
  double forward = 0, backward = 0, softmax = 0, softmax_backward = 0;
};

// A tower's bidirectional attention within each window or image:
// tokens / keys sequences of `keys` queries, whole on every CP rank.
CoreSeconds tower_core(const Kernels& kernels, bool unfused, const CoreShape& a) {
  const double tp = a.tp, b = a.b, seq = a.seq, tokens = a.tokens, heads = a.heads;
  const double qk_dim = a.qk_dim, v_dim = a.v_dim;
  double forward = 0, backward = 0, softmax = 0, softmax_backward = 0;
  const double sequences = heads / tp * tokens / seq;
  if (unfused) {
    const GemmRate& rate = kernels.high();
    forward = kernels.batched_gemm(rate, seq, seq, qk_dim, sequences) +
              kernels.batched_gemm(rate, seq, v_dim, seq, sequences);
    backward = 2 * forward;
    const double scores = tokens * seq * heads / tp * b;
    softmax = kernels.memory(scores * 2);
    softmax_backward = kernels.memory(scores * 3);
  } else {
    forward = kernels.attention(Pass::forward, seq, seq, qk_dim, v_dim, sequences, false);
    backward = kernels.attention(Pass::backward, seq, seq, qk_dim, v_dim, sequences, false);
  }
  return {forward, backward, softmax, softmax_backward};
}

// Without fused kernels: batched GEMMs over this device's queries and a softmax pass.
CoreSeconds unfused_core(const Kernels& kernels, const nds_strategy& s, const nds_layer_block& l,
                         const CoreShape& a) {
  const double tp = a.tp, b = a.b, seq = a.seq, tokens = a.tokens, heads = a.heads;
  const double instances = a.instances, qk_dim = a.qk_dim, v_dim = a.v_dim;
  double forward = 0, backward = 0, softmax = 0, softmax_backward = 0;
  const double queries = seq / s.cp;
  const GemmRate& rate = kernels.high();
  forward = kernels.batched_gemm(rate, queries, seq, qk_dim, instances) +
            kernels.batched_gemm(rate, queries, v_dim, seq, instances);
  backward = 2 * forward;
  // Per score, in passes over the s x s matrix: the fused softmax reads
  // and writes it (2; its backward reads probabilities and gradient and
  // writes one: 3), dropout reads and writes it and writes a 1-byte mask
  // (2.5; backward the same).
  const double dropout = l.attention_dropout > 0 ? 2.5 : 0;
  const double scores = tokens * seq * heads / tp * b;
  softmax = kernels.memory(scores * (2 + dropout));
  softmax_backward = kernels.memory(scores * (3 + dropout));
  return {forward, backward, softmax, softmax_backward};
}

// A sliding window of `window` keys in a fused kernel that skips the blocks outside it.
CoreSeconds windowed_core(const Kernels& kernels, const nds_strategy& s, double window,
                          const CoreShape& a) {
  const double seq = a.seq, instances = a.instances, qk_dim = a.qk_dim, v_dim = a.v_dim;
  double forward = 0, backward = 0;
  // Sliding-window attention in a fused kernel that skips the key blocks
  // outside the band (FlashAttention's window_size, Ascend's
  // FlashAttentionScore pre_tokens): each of the first `window` queries
  // sees the keys before it (a causal window x window block), each later
  // one `window` keys (a full block of (seq - window) x window), in all
  // seq·window - window²/2 scores instead of seq²/2. Under CP (the
  // all-to-all or all-gather exchanges that take a window: Transformer
  // Engine refuses one over its ring) each rank takes an even share, as
  // one full block of seq/cp queries by the band's mean keys per query.
  for (const Pass pass : {Pass::forward, Pass::backward}) {
    const double t =
        s.cp > 1
            ? kernels.attention(pass, seq / s.cp, sdk::band_mean_keys(window, seq), qk_dim, v_dim,
                                instances, false)
            : kernels.attention(pass, window, window, qk_dim, v_dim, instances, true) +
                  kernels.attention(pass, seq - window, window, qk_dim, v_dim, instances, false);
    (pass == Pass::forward ? forward : backward) = t;
  }
  return {forward, backward, 0, 0};
}

// Causal attention split by CP: zig-zag ring attention.
CoreSeconds ring_core(const Kernels& kernels, const nds_strategy& s, const CoreShape& a) {
  const double seq = a.seq, instances = a.instances, qk_dim = a.qk_dim, v_dim = a.v_dim;
  double forward = 0, backward = 0;
  // Zig-zag ring attention (docs/cp.md): each device's s/cp queries meet
  // its own causal block and cp-1 half-masked blocks of the others.
  const double q = seq / s.cp, rest = s.cp - 1.0;
  for (const Pass pass : {Pass::forward, Pass::backward}) {
    const double t = kernels.attention(pass, q, q, qk_dim, v_dim, instances, true) +
                     rest * kernels.attention(pass, q, q / 2, qk_dim, v_dim, instances, false);
    (pass == Pass::forward ? forward : backward) = t;
  }
  return {forward, backward, 0, 0};
}

// Causal attention over the whole sequence in one fused kernel.
CoreSeconds causal_core(const Kernels& kernels, const CoreShape& a) {
  const double seq = a.seq, instances = a.instances, qk_dim = a.qk_dim, v_dim = a.v_dim;
  const double forward = kernels.attention(Pass::forward, seq, seq, qk_dim, v_dim, instances, true);
  const double backward =
      kernels.attention(Pass::backward, seq, seq, qk_dim, v_dim, instances, true);
  return {forward, backward, 0, 0};
}

}  // namespace

void TimeModel::linear(Work& w, double tokens, double in, double out, double count,
                       Split split) const {
  const GemmRate& rate = kernels_.linear();
  // Experts' GEMMs, grouped or one after another, each run at the
  // efficiency of its own shape: a grouped GEMM is one launch, but its
  // tiles fill and drain per group. DeepGEMM's grouped FP8 kernels on H800
  // (README of 2025-02, microbenchmarks: 4 groups of M = 256, N = 4096,
  // K = 7168 at 932 TFLOP/s, 47 % of 1979; 8 groups of M = 4096 at 1288,
  // 65 %) are what the device curve gives one group's FLOPs (48 % and
  // 69 %), not all the groups' (63 % and 70 %). What grouping saves is
  // host launches, in the fitted host cost per local expert
  // (TrainerOverheads::moe_expert_s).
  auto gemm = [&](double m, double n, double k) { return kernels_.gemm(rate, m, n, k, count); };
  const double forward = gemm(tokens, out, in);
  // Input gradient [t, out] x [out, in], weight gradient [in, t] x [t, out].
  const double weights = gemm(in, out, tokens);
  const double backward = gemm(tokens, in, out) + weights;
  const double casts_forward = count * kernels_.memory(tokens * in * cast_bytes_);
  const double casts_backward = count * kernels_.memory(tokens * out * cast_bytes_);
  w.forward += forward + casts_forward;
  w.backward += backward + casts_backward;
  w.forward_linear += forward;
  w.backward_linear += backward;
  if (split == Split::column) w.backward_column += backward;
  w.weight_gradients += weights;
  if (cast_bytes_ > 0) w.fp8_params += count * in * out;
}

TimeModel::Work TimeModel::layer_work(const nds_candidate& c, const nds_layer_block& l,
                                      uint32_t block, nds_layer_option option) const {
  Work w = shaped_layer_work(c, l, option, decoder_span(*c.strategy));
  cp_comm(w, c, block, cp_passes(option));
  return w;
}

TimeModel::Work TimeModel::shaped_layer_work(const nds_candidate& c, const nds_layer_block& l,
                                             nds_layer_option option, const Span& span) const {
  const nds_strategy& s = *c.strategy;
  const bool full = option == NDS_LAYER_FULL;
  Work w;
  w.layers = 1;
  w.host =
      compiled_.layer_s + (routing_shaped(l) ? compiled_.moe_expert_s * local_experts(l, s) : 0);
  Rebuilt rebuilt;
  const double qk_rotated = attention_compute(w, c, l, span);
  const double routed_elements = mlp_compute(w, c, l, rebuilt, span);
  memory_bound(w, c, l, qk_rotated, routed_elements, rebuilt, span);
  const bool selective = option == NDS_LAYER_SELECTIVE;
  // PyTorch's per-op policy (per_op_checkpoint.cpp).
  const bool per_op = selective && selective_recomputes(NDS_RECOMPUTE_OP_ALTERNATE_MATMULS);
  if (full) {
    w.recompute += w.forward;
  } else if (selective) {
    if (per_op) rebuilt.alternate_matmuls = alternate_matmuls_s(c, l, w, span);
    w.recompute += selective_s(w, rebuilt);
  }
  // A fully recomputed layer runs its forward twice, and so its
  // communication; selective recompute of the dense MLP repeats the TP
  // collectives around it, of the MoE layer its dispatch and combine.
  // PyTorch's per-op policy saves the reduce-scatters but not the
  // all-gathers, which SP's pairs move as many bytes: half a pass more.
  const double passes_forward = full ? 2 : per_op ? 1.5 : 1;
  const bool mlp_rebuilt = (selective_recomputes(NDS_RECOMPUTE_OP_MLP) && l.ffn_hidden_size > 0) ||
                           (selective_recomputes(NDS_RECOMPUTE_OP_MOE) && l.experts > 0);
  const double mlp_passes = full || (selective && mlp_rebuilt) ? 2 : per_op ? 1.5 : 1;
  const double moe_passes =
      full || (selective && selective_recomputes(NDS_RECOMPUTE_OP_MOE)) ? 2 : 1;
  tp_comm(w, c, l, passes_forward, mlp_passes,
          span);  // each part prices nothing where its degree is 1
  ep_comm(w, c, l, moe_passes, span);
  const sdk::LayerParameters p = sdk::layer_parameters(l);
  w.dense_params += (p.attention + p.dense_mlp + p.shared_experts) / s.tp + p.norms + p.router;
  w.expert_params += p.routed_experts / (static_cast<double>(s.ep) * s.etp);
  // An MTP module (DeepSeek-V3 §2.2) projects [h; h] to h before its layer,
  // after a norm of each half.
  if (l.kind == NDS_BLOCK_MTP) {
    const double h = d(l.hidden_size);
    linear(w, span.tokens, 2 * h / s.tp, h);
    w.dense_params += 2 * h * h / s.tp + 2 * h;
  }
  return w;
}

double TimeModel::attention_compute(Work& w, const nds_candidate& c, const nds_layer_block& l,
                                    const Span& span) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp;
  const double tokens = span.tokens;
  const double h = d(l.hidden_size), heads = d(l.heads);
  double qk_rotated = 0;  // elements RoPE rotates per token
  if (l.attention == NDS_ATTENTION_MLA) {
    const double qk = d(l.qk_nope_head_dim + l.qk_rope_head_dim), ql = d(l.q_lora_rank),
                 kvl = d(l.kv_lora_rank);
    if (ql > 0) {
      linear(w, tokens, h, ql);  // down-projections stay whole on each TP rank
      linear(w, tokens, ql, heads * qk / tp, 1, Split::column);
    } else {
      linear(w, tokens, h, heads * qk / tp, 1, Split::column);
    }
    linear(w, tokens, h, kvl + d(l.qk_rope_head_dim));
    linear(w, tokens, kvl, heads * d(l.qk_nope_head_dim + l.v_head_dim) / tp, 1, Split::column);
    linear(w, tokens, heads * d(l.v_head_dim) / tp, h);
    attention_core(w, s, l, span, qk, d(l.v_head_dim));
    qk_rotated = (heads / tp + 1) * d(l.qk_rope_head_dim);
  } else {
    const double q = heads * d(l.head_dim), kv = d(l.kv_heads * l.head_dim),
                 o = heads * d(l.v_head_dim);
    linear(w, tokens, h, (q + 2 * kv) / tp, 1, Split::column);
    linear(w, tokens, o / tp, h);
    attention_core(w, s, l, span, d(l.head_dim), d(l.v_head_dim));
    qk_rotated = (q + kv) / tp;
  }
  return qk_rotated;
}

// The attention core's seconds by the kind of kernel that runs it, into `w`.
void TimeModel::attention_core(Work& w, const nds_strategy& s, const nds_layer_block& l,
                               const Span& span, double qk_dim, double v_dim) const {
  // Attention core: fused (flash) kernels per block, or without them batched
  // GEMMs (one per head and sequence) and a softmax over every key.
  const double tp = s.tp, heads = d(l.heads);
  const CoreShape a{tp,        compiled_.settings.activation_bytes,
                    span.keys, span.tokens,
                    heads,     heads / tp * s.mbs,
                    qk_dim,    v_dim};
  CoreSeconds t;
  if (span.tower) {
    t = tower_core(kernels_, compiled_.model.main.flash_attention == 0, a);
  } else if (compiled_.model.main.flash_attention == 0) {
    t = unfused_core(kernels_, s, l, a);
  } else if (const double window = d(l.attention_window); window > 0 && window < a.seq) {
    t = windowed_core(kernels_, s, window, a);
  } else if (s.cp > 1) {
    t = ring_core(kernels_, s, a);
  } else {
    t = causal_core(kernels_, a);
  }
  w.forward += t.forward + t.softmax;
  w.backward += t.backward + t.softmax_backward;
  w.forward_attention += t.forward + t.softmax;
  w.backward_attention += t.backward + t.softmax_backward;
}

double TimeModel::cp_passes(nds_layer_option option) const {
  // The attention core rebuilt reruns its CP exchanges (TE's ring attention
  // is inside it): a full recompute, or a selective one of the attention core.
  const bool rebuilt =
      option == NDS_LAYER_FULL ||
      (option == NDS_LAYER_SELECTIVE && selective_recomputes(NDS_RECOMPUTE_OP_CORE_ATTENTION));
  return rebuilt ? 2 : 1;
}

double TimeModel::selective_s(const Work& w, const Rebuilt& rebuilt) const {
  const uint64_t ops = compiled_.layers.selective_ops;
  double s = 0;
  // The attention core (Korthikanti et al. 2022 §5, Megatron's core_attn).
  if ((ops & NDS_RECOMPUTE_OP_CORE_ATTENTION) != 0) s += w.forward_attention;
  // The dense MLP whole holds its activation, the MoE layer whole its experts'.
  if ((ops & NDS_RECOMPUTE_OP_MLP) != 0) s += rebuilt.dense_mlp;
  if ((ops & NDS_RECOMPUTE_OP_MOE) != 0) {
    s += rebuilt.moe;
  } else {
    if ((ops & NDS_RECOMPUTE_OP_ACTIVATION) != 0) s += rebuilt.expert_activation;
    if ((ops & NDS_RECOMPUTE_OP_MLP_ACTIVATION) != 0) s += rebuilt.shared_activation;
  }
  if (((ops & NDS_RECOMPUTE_OP_MLP_ACTIVATION) != 0) && ((ops & NDS_RECOMPUTE_OP_MLP) == 0))
    s += rebuilt.dense_activation;
  if ((ops & NDS_RECOMPUTE_OP_NORM) != 0) s += rebuilt.norms;
  // PyTorch's per-op policy (per_op_checkpoint.cpp): every second matmul
  // and every memory-bound op; the attention core's output is saved.
  if ((ops & NDS_RECOMPUTE_OP_ALTERNATE_MATMULS) != 0)
    s += rebuilt.alternate_matmuls + rebuilt.memory_bound;
  return s;
}

double TimeModel::mlp_compute(Work& w, const nds_candidate& c, const nds_layer_block& l,
                              Rebuilt& rebuilt, const Span& span) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp;
  const double tokens = span.tokens;
  const double h = d(l.hidden_size);
  const double up = l.ffn == NDS_FFN_SWIGLU ? 2 : 1;  // the gate and up projections are one GEMM
  const double dense_before = w.forward;
  if (l.ffn_hidden_size > 0) {
    const double f = d(l.ffn_hidden_size);
    linear(w, tokens, h, up * f / tp, 1, Split::column);
    linear(w, tokens, f / tp, h);
  }
  rebuilt.dense_mlp = w.forward - dense_before;
  const double moe_before = w.forward;
  double routed_elements = 0;
  if (l.experts > 0) {
    // The router sees each device's tokens/tp (Megatron's sequence-parallel
    // MoE) and stays in higher precision.
    const double router_tokens = tokens / tp, experts = d(l.experts);
    const GemmRate& high = kernels_.high();
    w.forward += kernels_.gemm(high, router_tokens, experts, h);
    w.backward += kernels_.gemm(high, router_tokens, h, experts) +
                  kernels_.gemm(high, h, experts, router_tokens);
    // A device multiplies its tokens/tp share of the routed tokens, the
    // etp ranks' gathered together over each expert's 1/etp shard; the most
    // loaded EP rank, which sets the pace, its share times its load
    // (sdk::routed_rank_load: the routing's hottest rank, the capacity).
    const double routed =
        tokens / tp * d(l.experts_per_token) * sdk::routed_rank_load(compiled_.routing, l, s.ep);
    const double rows = routed * s.etp, f = d(l.moe_ffn_hidden_size) / s.etp;
    const double local = local_experts(l, s);
    const double before_f = w.forward, before_b = w.backward;
    // One GEMM per local expert's rows, grouped or not (linear()).
    linear(w, rows / local, h, up * f, local);
    linear(w, rows / local, f, h, local);
    w.forward_experts += w.forward - before_f;
    w.backward_experts += w.backward - before_b;
    // Permute before the experts and unpermute after: read and write each
    // routed row, each way; softmax and top-k over the router's fp32 logits.
    routed_elements = 4 * routed * h + 4 * router_tokens * experts;
  }
  if (l.shared_experts > 0 && l.shared_expert_ffn_hidden_size > 0) {
    const double f = d(l.shared_expert_ffn_hidden_size) * d(l.shared_experts);
    const double before_f = w.forward, before_b = w.backward;
    linear(w, tokens, h, up * f / tp, 1, Split::column);
    linear(w, tokens, f / tp, h);
    w.forward_shared += w.forward - before_f;
    w.backward_shared += w.backward - before_b;
  }
  // Megatron-Core's MoE layer holds its router and shared experts.
  if (l.experts > 0) rebuilt.moe = w.forward - moe_before;
  return routed_elements;
}

void TimeModel::tp_comm(Work& w, const nds_candidate& c, const nds_layer_block& l,
                        double attention_passes, double mlp_passes, const Span& span) const {
  const nds_strategy& s = *c.strategy;
  const double b = compiled_.settings.activation_bytes;
  const double tokens = span.tokens;
  const double h = d(l.hidden_size);
  const auto tp_n = static_cast<uint64_t>(s.tp);
  // Tensor parallelism: per pass an all-gather and a reduce-scatter (SP) or
  // an all-reduce around attention and around the dense MLP or shared
  // experts (routed experts exchange over EP instead). With TP overlap
  // (Megatron-Core / TE userbuffers, SP needed, inside one node) each
  // collective is split into chunks pipelined with its GEMM: at most the
  // measured share of it hides (kTpHidden*), and no more than the pass's
  // GEMMs last.
  if (s.tp > 1) {
    const bool tp_within_node = level_spanned(compiled_.device, tp_n, 1) == 0;
    const double activation = tokens * h * b;
    const double pairs = 1 + (l.ffn_hidden_size > 0 || l.shared_experts > 0 ? 1 : 0);
    const double per_pass =
        s.sp == 1 ? pairs * (comm(CommPart::tp, Collective::all_gather, tp_n, 1, activation) +
                             comm(CommPart::tp, Collective::reduce_scatter, tp_n, 1, activation))
                  : pairs * comm(CommPart::tp, Collective::all_reduce, tp_n, 1, activation);
    // Userbuffers exchange through the node's NVLink (CUDA IPC): a TP group
    // that crosses nodes gets no such overlap.
    const bool overlap =
        (compiled_.settings.overlap & NDS_OVERLAP_TP_COMM) != 0 && s.sp == 1 && tp_within_node;
    const double forward =
        !overlap ? per_pass
                 : pipelined_exposed(per_pass, w.forward_linear,
                                     compiled_.settings.tp_overlap_fused ? mc2_hidden_forward(tp_n)
                                                                         : kTpHiddenForward);
    // The backward: as Megatron's linears run it where the trainer does
    // (NDS_OVERLAP_TP_ASYNC), its async part hidden behind the
    // column-parallel linears' own input- and weight-gradient GEMMs (the
    // exchange is theirs). MC2 pipelines all of it with the GEMMs; TE's
    // userbuffers pipeline the pass's pair as the forward's and overlap the
    // input's second gather with the input-gradient GEMM whole (ub_bulk_dgrad).
    const TpBackward back =
        tp_backward(per_pass, s.sp == 1, (compiled_.settings.overlap & NDS_OVERLAP_TP_ASYNC) != 0,
                    compiled_.model.training.tp_keeps_gathered_inputs == 1);
    const double regather = back.moved - per_pass;
    const double backward =
        !overlap ? back.waits + pipelined_exposed(back.moved - back.waits, w.backward_column, 1.0)
        : compiled_.settings.tp_overlap_fused
            ? pipelined_exposed(back.moved, w.backward_linear, 1.0)
            : tp_userbuffers_backward(per_pass, regather, w.backward_linear);
    // Forward passes, each pair of collectives counted with its own.
    const double passes_forward = (attention_passes + (pairs - 1) * mlp_passes) / pairs;
    w.tp += passes_forward * forward + backward;
    w.tp_hidden += passes_forward * (per_pass - forward) + (back.moved - backward);
  }
}

void TimeModel::ep_comm(Work& w, const nds_candidate& c, const nds_layer_block& l,
                        double passes_forward, const Span& span) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp, b = compiled_.settings.activation_bytes;
  const double tokens = span.tokens;
  const double h = d(l.hidden_size);
  if (l.experts > 0 && (s.ep > 1 || s.etp > 1)) {
    // Dispatch and combine of the tokens a device routes (its tokens/tp
    // share), each pass, by the trainer's dispatcher (nds_moe_dispatcher);
    // the most loaded EP rank receives its load times an even share
    // (sdk::routed_rank_load) and sets the exchange's pace. With etp > 1 an
    // all-gather over the etp ranks before the experts and a reduce-scatter
    // after (with or without ep).
    const auto ep = static_cast<uint64_t>(s.ep), etp = static_cast<uint64_t>(s.etp);
    const double load = sdk::routed_rank_load(compiled_.routing, l, s.ep);
    const double copies = tokens / tp * d(l.experts_per_token);  // routed copies a device sends
    const double routed = copies * h * b * load;
    double per_pass = 0;
    if (ep > 1) {
      if (compiled_.model.training.moe_dispatcher == NDS_MOE_DISPATCH_ALLGATHER) {
        // Every token gathered over the EP group, the outputs reduce-scattered back.
        const double gathered = tokens / tp * h * b * d(s.ep);
        per_pass = comm(CommPart::ep, Collective::all_gather, ep, etp, gathered) +
                   comm(CommPart::ep, Collective::reduce_scatter, ep, etp, gathered);
      } else if (compiled_.model.training.moe_dispatcher == NDS_MOE_DISPATCH_NODE_DEDUP) {
        // One copy per other node a token's experts sit on over the NIC,
        // every copy over the node's links to its expert's device.
        const double remote = remote_nodes_per_token(l, d(group_nodes(compiled_.device, ep, etp)));
        per_pass = 2 * compiled_.calibration.comm(CommPart::ep) *
                   node_dedup_seconds(compiled_.device, ep, etp,
                                      tokens / tp * remote * h * b * load, routed);
      } else {
        per_pass = 2 * comm(CommPart::ep, Collective::all_to_all, ep, etp, routed);
      }
    }
    if (s.etp > 1)
      per_pass += comm(CommPart::ep, Collective::all_gather, etp, 1, routed * s.etp) +
                  comm(CommPart::ep, Collective::reduce_scatter, etp, 1, routed * s.etp);
    // With the MoE all-to-all overlapped (Megatron-Core's
    // overlap_moe_expert_parallel_comm) one micro-batch's forward runs beside
    // another's backward, layer by layer, each's dispatch and combine beside
    // the other's compute (combined_1f1b.py): the forward's exchange hides
    // behind a backward of the layer, the backward's behind a forward; with
    // one micro-batch there is no other. With the shared experts' overlap
    // (--moe-shared-expert-overlap) the same micro-batch's shared experts
    // run on another stream beside its exchange: they alone hide it.
    // (DualPipe's overlap is the schedule's: time_model.cpp.)
    const bool other = (compiled_.settings.overlap & NDS_OVERLAP_MOE_A2A) != 0 && s.mbn > 1;
    const bool shared = (compiled_.settings.overlap & NDS_OVERLAP_MOE_SHARED) != 0;
    auto exposed = [&](double other_pass, double shared_pass) {
      const double window = other ? other_pass : shared ? shared_pass : 0;
      return std::max(0.0, per_pass - window);
    };
    const double forward = exposed(w.backward, w.forward_shared),
                 backward = exposed(w.forward, w.backward_shared);
    w.ep += passes_forward * forward + backward;
    w.ep_hidden += passes_forward * (per_pass - forward) + (per_pass - backward);
  }
}

void TimeModel::cp_comm(Work& w, const nds_candidate& c, uint32_t block,
                        double passes_forward) const {
  const nds_strategy& s = *c.strategy;
  if (s.cp > 1 && cp_ != nullptr) {
    const CpCost cost = cp_->evaluate(c, block);
    const bool overlap = (compiled_.settings.overlap & NDS_OVERLAP_CP) != 0;
    for (uint32_t k = 0; k < cost.comm_count; ++k) {
      const nds_cp_comm& exchange = cost.comms[k];
      const Collective kind =
          exchange.collective == NDS_COLLECTIVE_ALL_TO_ALL       ? Collective::all_to_all
          : exchange.collective == NDS_COLLECTIVE_ALL_GATHER     ? Collective::all_gather
          : exchange.collective == NDS_COLLECTIVE_REDUCE_SCATTER ? Collective::reduce_scatter
          : exchange.collective == NDS_COLLECTIVE_ALL_REDUCE     ? Collective::all_reduce
                                                                 : Collective::send_recv;
      for (const auto& [bytes, pass_steps, runs, attention] :
           {std::tuple{exchange.forward_bytes, exchange.forward_steps, passes_forward,
                       w.forward_attention},
            std::tuple{exchange.backward_bytes, exchange.backward_steps, 1.0,
                       w.backward_attention}}) {
        double total = 0, exposed = 0;
        if (kind == Collective::send_recv) {
          // The ring's blocks arrive in steps, each a message sent while the
          // previous block's attention runs (TE's ring attention): a step
          // stays exposed only for what its block's attention cannot cover.
          const double steps = std::max<uint32_t>(1, pass_steps);
          const double step =
              comm(CommPart::cp, kind, exchange.group_size, exchange.group_stride, bytes / steps);
          total = steps * step;
          exposed = overlap ? steps * std::max(0.0, step - attention / s.cp) : total;
        } else {
          // The plugin states what one device sends; a ring moves (n-1)/n of
          // the whole. All-to-alls and gathers sit before or after the
          // attention that needs them: nothing hides them.
          const double n = exchange.group_size;
          const double whole = n > 1 ? bytes * n / (n - 1) : 0;
          total = exposed =
              comm(CommPart::cp, kind, exchange.group_size, exchange.group_stride, whole);
        }
        w.cp += runs * exposed;
        w.cp_hidden += runs * (total - exposed);
      }
    }
  }
}

}  // namespace ndsearch
