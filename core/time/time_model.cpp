// SPDX-License-Identifier: Apache-2.0
#include "core/time/time_model.hpp"

#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

#include "core/model/model_json.hpp"
#include "core/hardware/topology.hpp"
#include "core/time/collectives.hpp"

namespace ndsearch {
namespace {

// Elementwise traffic per token and layer, in elements of the activation
// dtype, forward (backward moves about twice as much): each of the two norms
// reads and writes h (4h), the two residual additions read 2h and write h
// (6h), each dropout reads and writes h and writes a mask (about 2.5h each).
constexpr double kElementwiseHidden = 4 + 6;
constexpr double kDropoutHidden = 2 * 2.5;

// Megatron-LM's vocabulary-parallel cross entropy, per logit: the forward
// reads the bf16 logits twice (max, then exp-sum) and keeps the fp32
// softmax (2 + 2 + 4 bytes); the backward reads it and writes the bf16
// gradient (4 + 2).
constexpr double kCrossEntropyForwardBytes = 8;
constexpr double kCrossEntropyBackwardBytes = 6;

// How much of the TP collectives chunked overlap hides at best: 75 % in the
// forward, 50 % in the backward (DoMiNO in nanotron, 62 % overall:
// huggingface/nanotron PR 284, microbenchmarks.md §6; no figure for
// Transformer Engine's userbuffers is published). The first chunk, the
// synchronisation between chunks and the GEMMs slowed by the SMs the
// exchange takes stay on the critical path.
constexpr double kTpHiddenForward = 0.75;
constexpr double kTpHiddenBackward = 0.50;

// A collective hidden behind compute still takes SMs from it: NCCL's
// userbuffer all-gather and reduce-scatter run on 4-5 SMs over NVLink alone
// and on 16 when they also cross InfiniBand (Megatron-Core's
// distributed_data_parallel_config.py, microbenchmarks.md §6), of H100's
// 132: the compute they overlap runs that much slower for as long as they
// last. Pipeline sends go by copy engine and take none.
constexpr double kNvlinkSmShare = 4.5 / 132;
constexpr double kNetworkSmShare = 16.0 / 132;

// Megatron-Core's DDP bucket: max(40M, 1M x dp) parameters
// (distributed_data_parallel_config.py, microbenchmarks.md §6). The last
// bucket of the backward (the first of the forward's gathers) has nothing
// left to hide behind.
constexpr double kBucketParams = 40e6;
constexpr double kBucketParamsPerReplica = 1e6;

double d(int64_t v) {
  return static_cast<double>(v);
}

}  // namespace

// One layer's (or one rank's) work for one micro-batch.
struct TimeModel::Work {
  double forward = 0, backward = 0, recompute = 0;  // compute seconds
  double forward_linear = 0, backward_linear = 0;   // GEMMs TP comm overlaps with
  double forward_experts = 0, backward_experts = 0; // routed experts (what EP comm cannot hide behind)
  double forward_attention = 0, backward_attention = 0;  // the attention core
  double weight_gradients = 0;  // of the backward, the weight-gradient GEMMs (ZB-V's W)
  double tp = 0, cp = 0, ep = 0, pp = 0;                 // exposed communication
  double tp_hidden = 0, cp_hidden = 0, ep_hidden = 0, pp_hidden = 0;
  double layers = 0;
  double dense_params = 0, expert_params = 0;  // held by this rank (its shard of TP/EP)
  double fp8_params = 0;                       // of them, weights of fp8 GEMMs
  double exposed() const { return forward + backward + recompute + tp + cp + ep + pp; }
  void add(const Work& o, double n) {
    forward += n * o.forward, backward += n * o.backward, recompute += n * o.recompute;
    forward_linear += n * o.forward_linear, backward_linear += n * o.backward_linear;
    forward_experts += n * o.forward_experts, backward_experts += n * o.backward_experts;
    forward_attention += n * o.forward_attention, backward_attention += n * o.backward_attention;
    weight_gradients += n * o.weight_gradients;
    tp += n * o.tp, cp += n * o.cp, ep += n * o.ep, pp += n * o.pp;
    tp_hidden += n * o.tp_hidden, cp_hidden += n * o.cp_hidden, ep_hidden += n * o.ep_hidden;
    pp_hidden += n * o.pp_hidden;
    layers += n * o.layers;
    dense_params += n * o.dense_params, expert_params += n * o.expert_params, fp8_params += n * o.fp8_params;
  }
};

// A layer's work depends on its block, whether it is recomputed and the
// strategy, not on its rank: one estimate prices each pair once (models with
// more blocks than this price the rest every time).
struct TimeModel::LayerCache {
  static constexpr uint32_t kBlocks = 8;  // zeroed per estimate: a few blocks is what models have
  std::array<Work, 2 * kBlocks> work{};
  std::array<bool, 2 * kBlocks> known{};
};

TimeModel::TimeModel(const Model& model, const Device& device, CpModel* cp,
                     const std::optional<TrainerOverheads>& overheads)
    : model_(model),
      device_(device),
      cp_(cp),
      settings_(trainer_settings(model, device, overheads)),
      kernels_(device, settings_.linear_dtype, settings_.high_dtype, settings_.activation_bytes,
               1 + settings_.overheads.kernel_slowdown) {
  for (size_t i = 0; i < model.main.blocks.size(); ++i) {
    const nds_layer_block& b = model.main.blocks[i].c;
    if (b.kind == NDS_BLOCK_MTP) mtp_blocks_.push_back(static_cast<uint32_t>(i));
    if (b.kind != NDS_BLOCK_DECODER) continue;
    const uint32_t end = static_cast<uint32_t>(layer_block_.size() + static_cast<size_t>(b.layers));
    layer_block_.insert(layer_block_.end(), static_cast<size_t>(b.layers), &b);
    block_index_.insert(block_index_.end(), static_cast<size_t>(b.layers), static_cast<uint32_t>(i));
    run_end_.resize(layer_block_.size(), end);
  }
  // What DESIGN §8.7's model FLOPs need of the layers, the same for every candidate.
  for (const nds_layer_block* l : layer_block_) {
    active_params_ += sdk::layer_parameters(*l).active();
    attention_width_ += d(l->heads * l->head_dim);
  }
  // MTP modules (DeepSeek-V3 §2.2) train on every token too: each a layer plus
  // its [h; h] -> h projection, and another pass through the output head.
  for (uint32_t i : mtp_blocks_) {
    const nds_layer_block& b = model.main.blocks[i].c;
    const double h = d(b.hidden_size), layers = d(b.layers);
    active_params_ += layers * (sdk::layer_parameters(b).active() + 2 * h * h);
    attention_width_ += layers * d(b.heads * b.head_dim);
    mtp_heads_ += layers;
  }
  // An fp8 GEMM's input is cast from the activation dtype with a transposed
  // copy for the other gradient GEMM (Transformer Engine's cast_transpose on
  // Hopper, which needs TN layouts): read the activation, write two fp8
  // copies; current scaling reads it once more for its amax first.
  if (kernels_.linear_dtype() == "fp8")
    cast_bytes_ = settings_.activation_bytes + 2 + (settings_.fp8_recipe == NDS_FP8_CURRENT ? settings_.activation_bytes : 0);
  assumptions_ = settings_.assumptions;
  assumptions_.push_back(kernels_.assumptions());
}

void TimeModel::linear(Work& w, double tokens, double in, double out, double count, bool grouped) const {
  const GemmRate& rate = kernels_.linear();
  auto gemm = [&](double m, double n, double k) {
    return grouped ? kernels_.batched_gemm(rate, m, n, k, count) : kernels_.gemm(rate, m, n, k, count);
  };
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
  w.weight_gradients += weights;
  if (cast_bytes_ > 0) w.fp8_params += count * in * out;
}

TimeModel::Work TimeModel::layer_work(const nds_candidate& c, const nds_layer_block& l, uint32_t block,
                                      bool is_recomputed) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp, b = settings_.activation_bytes;
  const double seq = d(model_.training.seq_len);
  const double tokens = s.mbs * seq / s.cp;  // per micro-batch on one device
  const double split = s.sp == 1 ? tp : 1;   // tokens the norms see are split with SP
  const uint64_t tp_n = static_cast<uint64_t>(s.tp);
  const bool full = is_recomputed && s.recompute == NDS_RECOMPUTE_FULL;
  Work w;
  w.layers = 1;
  const double h = d(l.hidden_size), heads = d(l.heads);
  const bool gated = l.ffn == NDS_FFN_SWIGLU;
  const double up = gated ? 2 : 1;  // the gate and up projections are one GEMM
  // Attention core: fused (flash) kernels per block, or without them batched
  // GEMMs (one per head and sequence) and a softmax over every key.
  double softmax = 0, softmax_backward = 0;
  auto attention_core = [&](double qk_dim, double v_dim) {
    const double instances = heads / tp * s.mbs;
    double forward = 0, backward = 0;
    if (model_.main.flash_attention == 0) {
      const double queries = seq / s.cp;
      const GemmRate& rate = kernels_.high();
      forward = kernels_.batched_gemm(rate, queries, seq, qk_dim, instances) +
                kernels_.batched_gemm(rate, queries, v_dim, seq, instances);
      backward = 2 * forward;
      // Per score, in passes over the s x s matrix: the fused softmax reads
      // and writes it (2; its backward reads probabilities and gradient and
      // writes one: 3), dropout reads and writes it and writes a 1-byte mask
      // (2.5; backward the same).
      const double dropout = l.attention_dropout > 0 ? 2.5 : 0;
      const double scores = tokens * seq * heads / tp * b;
      softmax = kernels_.memory(scores * (2 + dropout));
      softmax_backward = kernels_.memory(scores * (3 + dropout));
    } else if (s.cp > 1) {
      // Zig-zag ring attention (docs/cp.md): each device's s/cp queries meet
      // its own causal block and cp-1 half-masked blocks of the others.
      const double q = seq / s.cp, rest = s.cp - 1.0;
      for (const Pass pass : {Pass::forward, Pass::backward}) {
        const double t = kernels_.attention(pass, q, q, qk_dim, v_dim, instances, true) +
                         rest * kernels_.attention(pass, q, q / 2, qk_dim, v_dim, instances, false);
        (pass == Pass::forward ? forward : backward) = t;
      }
    } else {
      forward = kernels_.attention(Pass::forward, seq, seq, qk_dim, v_dim, instances, true);
      backward = kernels_.attention(Pass::backward, seq, seq, qk_dim, v_dim, instances, true);
    }
    w.forward += forward + softmax;
    w.backward += backward + softmax_backward;
    w.forward_attention += forward + softmax;
    w.backward_attention += backward + softmax_backward;
  };
  double qk_rotated = 0;  // elements RoPE rotates per token
  if (l.attention == NDS_ATTENTION_MLA) {
    const double qk = d(l.qk_nope_head_dim + l.qk_rope_head_dim), ql = d(l.q_lora_rank), kvl = d(l.kv_lora_rank);
    if (ql > 0) {
      linear(w, tokens, h, ql);  // down-projections stay whole on each TP rank
      linear(w, tokens, ql, heads * qk / tp);
    } else {
      linear(w, tokens, h, heads * qk / tp);
    }
    linear(w, tokens, h, kvl + d(l.qk_rope_head_dim));
    linear(w, tokens, kvl, heads * d(l.qk_nope_head_dim + l.v_head_dim) / tp);
    linear(w, tokens, heads * d(l.v_head_dim) / tp, h);
    attention_core(qk, d(l.v_head_dim));
    qk_rotated = (heads / tp + 1) * d(l.qk_rope_head_dim);
  } else {
    const double q = heads * d(l.head_dim), kv = d(l.kv_heads * l.head_dim), o = heads * d(l.v_head_dim);
    linear(w, tokens, h, (q + 2 * kv) / tp);
    linear(w, tokens, o / tp, h);
    attention_core(d(l.head_dim), d(l.v_head_dim));
    qk_rotated = (q + kv) / tp;
  }
  if (l.ffn_hidden_size > 0) {
    const double f = d(l.ffn_hidden_size);
    linear(w, tokens, h, up * f / tp);
    linear(w, tokens, f / tp, h);
  }
  double routed_elements = 0;
  if (l.experts > 0) {
    // The router sees each device's tokens/tp (Megatron's sequence-parallel
    // MoE) and stays in higher precision.
    const double router_tokens = tokens / tp, experts = d(l.experts);
    const GemmRate& high = kernels_.high();
    w.forward += kernels_.gemm(high, router_tokens, experts, h);
    w.backward += kernels_.gemm(high, router_tokens, h, experts) + kernels_.gemm(high, h, experts, router_tokens);
    const double capacity = l.capacity_factor > 0 ? l.capacity_factor : 1;
    // A device multiplies its tokens/tp share of the routed tokens, the
    // etp ranks' gathered together over each expert's 1/etp shard.
    const double routed = tokens / tp * d(l.experts_per_token) * capacity;
    const double rows = routed * s.etp, f = d(l.moe_ffn_hidden_size) / s.etp;
    const double local_experts = std::max(1.0, experts / s.ep);
    const double before_f = w.forward, before_b = w.backward;
    // One GEMM per local expert, or one grouped GEMM over all of them (one
    // launch; every expert's weights read all the same).
    const bool grouped = l.grouped_gemm == 1;
    linear(w, rows / local_experts, h, up * f, local_experts, grouped);
    linear(w, rows / local_experts, f, h, local_experts, grouped);
    w.forward_experts += w.forward - before_f;
    w.backward_experts += w.backward - before_b;
    // Permute before the experts and unpermute after: read and write each
    // routed row, each way; softmax and top-k over the router's fp32 logits.
    routed_elements = 4 * routed * h + 4 * router_tokens * experts;
  }
  if (l.shared_experts > 0 && l.shared_expert_ffn_hidden_size > 0) {
    const double f = d(l.shared_expert_ffn_hidden_size) * d(l.shared_experts);
    linear(w, tokens, h, up * f / tp);
    linear(w, tokens, f / tp, h);
  }
  // Memory-bound work: norms, residuals, dropout, the MLP activation, RoPE
  // on queries and keys, the MoE permutation.
  double elements = tokens * h * (kElementwiseHidden + (l.hidden_dropout > 0 ? kDropoutHidden : 0)) / split;
  const double ffn_width = d(std::max<int64_t>(l.ffn_hidden_size, 0)) / tp +
                           (l.experts > 0 ? d(l.experts_per_token) * d(l.moe_ffn_hidden_size) / tp : 0) +
                           d(std::max<int64_t>(l.shared_expert_ffn_hidden_size, 0)) *
                               d(std::max<int64_t>(l.shared_experts, 0)) / tp;
  elements += tokens * ffn_width * (gated ? 3 : 2);
  if (model_.main.position_embedding == NDS_POSITION_ROPE) elements += 2 * tokens * qk_rotated;
  elements += routed_elements;
  const double memory = kernels_.memory(elements * b);
  w.forward += memory;
  w.backward += 2 * memory;
  if (full) {
    w.recompute += w.forward;
  } else if (is_recomputed && s.recompute == NDS_RECOMPUTE_SELECTIVE) {
    w.recompute += w.forward_attention;  // the attention core (Korthikanti et al. 2022 §5)
  }
  const double passes_forward = full ? 2 : 1;  // a fully recomputed layer runs its forward twice
  // Tensor parallelism: per pass an all-gather and a reduce-scatter (SP) or
  // an all-reduce around attention and around the dense MLP or shared
  // experts (routed experts exchange over EP instead). With TP overlap
  // (Megatron-Core / TE userbuffers, SP needed, inside one node) each
  // collective is split into chunks pipelined with its GEMM: at most the
  // measured share of it hides (kTpHidden*), and no more than the pass's
  // GEMMs last.
  if (s.tp > 1) {
    const bool tp_within_node = level_spanned(device_, tp_n, 1) == 0;
    const double activation = tokens * h * b;
    const double pairs = 1 + (l.ffn_hidden_size > 0 || l.shared_experts > 0 ? 1 : 0);
    const double per_pass =
        s.sp == 1 ? pairs * (collective_seconds(device_, Collective::all_gather, tp_n, 1, activation) +
                             collective_seconds(device_, Collective::reduce_scatter, tp_n, 1, activation))
                  : pairs * collective_seconds(device_, Collective::all_reduce, tp_n, 1, activation);
    // Userbuffers exchange through the node's NVLink (CUDA IPC): a TP group
    // that crosses nodes gets no such overlap.
    const bool overlap = (settings_.overlap & NDS_OVERLAP_TP_COMM) != 0 && s.sp == 1 && tp_within_node;
    auto exposed = [&](double window, double most_hidden) {
      return overlap ? std::max(per_pass * (1 - most_hidden), per_pass - window) : per_pass;
    };
    const double forward = exposed(w.forward_linear, kTpHiddenForward);
    const double backward = exposed(w.backward_linear, kTpHiddenBackward);
    w.tp += passes_forward * forward + backward;
    w.tp_hidden += passes_forward * (per_pass - forward) + (per_pass - backward);
  }
  if (l.experts > 0 && (s.ep > 1 || s.etp > 1)) {
    // Dispatch and combine all-to-alls of the tokens a device routes (its
    // tokens/tp share), each pass; with etp > 1 an all-gather over the etp
    // ranks before the experts and a reduce-scatter after (with or without
    // ep). With the MoE all-to-all overlapped (DualPipe, Megatron-Core's
    // 1F1B A2A overlap) another micro-batch's non-expert compute of the
    // layer hides it; with one micro-batch there is no other.
    const double routed = tokens / tp * d(l.experts_per_token) * h * b;
    double per_pass = 2 * collective_seconds(device_, Collective::all_to_all, static_cast<uint64_t>(s.ep),
                                             static_cast<uint64_t>(s.etp), routed);
    if (s.etp > 1)
      per_pass += collective_seconds(device_, Collective::all_gather, static_cast<uint64_t>(s.etp), 1, routed * s.etp) +
                  collective_seconds(device_, Collective::reduce_scatter, static_cast<uint64_t>(s.etp), 1, routed * s.etp);
    const bool overlap = (settings_.overlap & NDS_OVERLAP_MOE_A2A) != 0 && s.mbn > 1;
    auto exposed = [&](double window) { return overlap ? std::max(0.0, per_pass - window) : per_pass; };
    const double forward = exposed(w.forward - w.forward_experts), backward = exposed(w.backward - w.backward_experts);
    w.ep += passes_forward * forward + backward;
    w.ep_hidden += passes_forward * (per_pass - forward) + (per_pass - backward);
  }
  if (s.cp > 1 && cp_ != nullptr) {
    const CpCost cost = cp_->evaluate(c, block);
    const bool overlap = (settings_.overlap & NDS_OVERLAP_CP) != 0;
    for (uint32_t k = 0; k < cost.comm_count; ++k) {
      const nds_cp_comm& comm = cost.comms[k];
      const Collective kind = comm.collective == NDS_COLLECTIVE_ALL_TO_ALL       ? Collective::all_to_all
                              : comm.collective == NDS_COLLECTIVE_ALL_GATHER     ? Collective::all_gather
                              : comm.collective == NDS_COLLECTIVE_REDUCE_SCATTER ? Collective::reduce_scatter
                              : comm.collective == NDS_COLLECTIVE_ALL_REDUCE     ? Collective::all_reduce
                                                                                 : Collective::send_recv;
      for (const auto& [bytes, pass_steps, runs, attention] :
           {std::tuple{comm.forward_bytes, comm.forward_steps, passes_forward, w.forward_attention},
            std::tuple{comm.backward_bytes, comm.backward_steps, 1.0, w.backward_attention}}) {
        double total = 0, exposed = 0;
        if (kind == Collective::send_recv) {
          // The ring's blocks arrive in steps, each a message sent while the
          // previous block's attention runs (TE's ring attention): a step
          // stays exposed only for what its block's attention cannot cover.
          const double steps = std::max<uint32_t>(1, pass_steps);
          const double step = collective_seconds(device_, kind, comm.group_size, comm.group_stride, bytes / steps);
          total = steps * step;
          exposed = overlap ? steps * std::max(0.0, step - attention / s.cp) : total;
        } else {
          // The plugin states what one device sends; a ring moves (n-1)/n of
          // the whole. All-to-alls and gathers sit before or after the
          // attention that needs them: nothing hides them.
          const double n = comm.group_size;
          const double whole = n > 1 ? bytes * n / (n - 1) : 0;
          total = exposed = collective_seconds(device_, kind, comm.group_size, comm.group_stride, whole);
        }
        w.cp += runs * exposed;
        w.cp_hidden += runs * (total - exposed);
      }
    }
  }
  const sdk::LayerParameters p = sdk::layer_parameters(l);
  w.dense_params += (p.attention + p.dense_mlp + p.shared_experts) / tp + p.norms + p.router;
  w.expert_params += p.routed_experts / (static_cast<double>(s.ep) * s.etp);
  return w;
}

TimeModel::Work TimeModel::rank_work(const nds_candidate& c, int32_t rank, LayerCache& cache) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp, b = settings_.activation_bytes;
  const double seq = d(model_.training.seq_len);
  const double tokens = s.mbs * seq / s.cp;  // per micro-batch on one device
  const double vocab = d(model_.main.padded_vocab_size != NDS_UNKNOWN ? model_.main.padded_vocab_size
                                                                      : model_.main.vocab_size);
  Work r;
  const uint32_t layers = static_cast<uint32_t>(layer_block_.size());
  for (int32_t chunk = 0; chunk < s.vpp; ++chunk) {
    const size_t i = static_cast<size_t>(rank) * s.vpp + chunk;
    const uint32_t first = c.chunk_first_layer[i], count = c.chunk_layers[i];
    const uint32_t recomputed = std::min(c.chunk_recomputed_layers[i], count);
    // Layers of one block are alike: price one, count the run (the chunk's
    // first `recomputed` layers apart, since they differ in recompute).
    for (uint32_t layer = first; layer < first + count;) {
      const bool is_recomputed = layer - first < recomputed;  // the chunk's first layers (reference §5.1)
      const uint32_t boundary = is_recomputed ? first + recomputed : first + count;
      const uint32_t run_end = std::min(boundary, run_end_[layer]);
      const double n = run_end - layer;
      const uint32_t block = block_index_[layer];
      const size_t slot = 2 * static_cast<size_t>(block) + (is_recomputed ? 1 : 0);
      Work computed;
      const bool cached = block < LayerCache::kBlocks;
      if (!cached || !cache.known[slot]) {
        computed = layer_work(c, *layer_block_[layer], block, is_recomputed);
        if (cached) {
          cache.work[slot] = computed;
          cache.known[slot] = true;
        }
      }
      r.add(cached ? cache.work[slot] : computed, n);
      layer = run_end;
    }
    // The output head's logits and the cross entropy over the vocabulary on
    // the chunk holding the last layer; the embedding's gather is negligible.
    if (count > 0 && first + count == layers) {
      const double h = d(layer_block_.back()->hidden_size);
      const GemmRate& high = kernels_.high();
      const double v = vocab / tp;
      Work head;
      head.forward = kernels_.gemm(high, tokens, v, h) + kernels_.memory(tokens * v * kCrossEntropyForwardBytes);
      head.backward = kernels_.gemm(high, tokens, h, v) + kernels_.gemm(high, h, v, tokens) +
                      kernels_.memory(tokens * v * kCrossEntropyBackwardBytes);
      r.add(head, 1);
      r.dense_params += vocab * h / tp;
      // The MTP modules follow the last layer on its rank (Megatron's and
      // MindSpeed's placement): each a layer, its projection and the head again.
      for (uint32_t block : mtp_blocks_) {
        const nds_layer_block& l = model_.main.blocks[block].c;
        Work one = layer_work(c, l, block, false);
        linear(one, tokens, 2 * d(l.hidden_size) / tp, d(l.hidden_size));
        one.add(head, 1);
        r.add(one, d(l.layers));
      }
    }
    // The embedding on the chunk holding the first layer; tied to the output
    // head, one copy where one chunk holds both.
    const bool holds_head = count > 0 && first + count == layers;
    if (count > 0 && first == 0 && !(holds_head && model_.main.tied_embeddings == 1))
      r.dense_params += vocab * d(layer_block_.front()->hidden_size) / tp;
  }
  // Pipeline: each micro-batch sends its activations forward and receives
  // their gradient on every chunk boundary, each TP rank its 1/tp of them
  // (split by SP, or without it by Megatron's scatter-gather of pipeline
  // tensors: Narayanan et al. 2021 §4.1). The interleaved schedule with p2p
  // overlap posts them while the next chunk computes (Megatron-Core's
  // overlap_p2p_comm): only their latency stays on the critical path.
  if (s.pp > 1) {
    const double h = d(layer_block_.front()->hidden_size);
    const double message = tokens * h * b / tp;
    const uint64_t stride = static_cast<uint64_t>(s.tp) * s.cp * s.dp;
    const double total = 2 * s.vpp * collective_seconds(device_, Collective::send_recv, 2, stride, message);
    const bool overlap = (settings_.overlap & NDS_OVERLAP_P2P) != 0 && s.vpp > 1;
    const double exposed =
        overlap ? 2 * s.vpp * collective_seconds(device_, Collective::send_recv, 2, stride, 0) : total;
    r.pp += exposed;
    r.pp_hidden += total - exposed;
  }
  return r;
}

bool TimeModel::same_work_as_previous(const nds_candidate& c, int32_t rank) const {
  const nds_strategy& s = *c.strategy;
  const uint32_t layers = static_cast<uint32_t>(layer_block_.size());
  for (int32_t chunk = 0; chunk < s.vpp; ++chunk) {
    const size_t i = static_cast<size_t>(rank) * s.vpp + chunk, before = i - static_cast<size_t>(s.vpp);
    const uint32_t count = c.chunk_layers[i];
    if (count != c.chunk_layers[before] || c.chunk_recomputed_layers[i] != c.chunk_recomputed_layers[before])
      return false;
    if (count == 0) continue;
    // Neither holds the embedding, the output head or the MTP modules.
    for (const size_t k : {i, before})
      if (c.chunk_first_layer[k] == 0 || c.chunk_first_layer[k] + count == layers) return false;
    // Both chunks inside one block each, the same block.
    const uint32_t first = c.chunk_first_layer[i], other = c.chunk_first_layer[before];
    const uint32_t block = block_index_[first];
    if (block_index_[first + count - 1] != block || block_index_[other] != block ||
        block_index_[other + count - 1] != block)
      return false;
  }
  return true;
}

TimeModel::DataParallel TimeModel::data_parallel_and_optimizer(const nds_strategy& s, const Work& r) const {
  // Gradients are reduced once per step over the dp·cp replicas of each
  // dense parameter (reduce-scatter with ZeRO, all-reduce without) and over
  // the expert-data-parallel group for experts; ZeRO-1/2 then all-gather the
  // updated parameters once; ZeRO-3 keeps only its shard, so it gathers
  // every parameter before each micro-batch's forward and again before its
  // backward: 2·mbn gathers a step.
  const nds_training& t = model_.training;
  const double grad_bytes = sdk::dtype_bytes(t.grads_dtype);
  const double param_bytes = sdk::dtype_bytes(t.params_dtype);
  const uint64_t replicas = static_cast<uint64_t>(s.dp) * s.cp;
  const uint64_t expert_replicas =
      std::max<uint64_t>(1, replicas * static_cast<uint64_t>(s.tp) / (static_cast<uint64_t>(s.ep) * s.etp));
  const uint64_t dense_stride = static_cast<uint64_t>(s.tp);
  const uint64_t expert_stride = static_cast<uint64_t>(s.ep) * s.etp;
  const Collective reduce = s.zero >= 1 ? Collective::reduce_scatter : Collective::all_reduce;
  auto both = [&](Collective kind, double bytes_per_param) {
    return collective_seconds(device_, kind, replicas, dense_stride, r.dense_params * bytes_per_param) +
           collective_seconds(device_, kind, expert_replicas, expert_stride, r.expert_params * bytes_per_param);
  };
  const double buckets = std::max(1.0, (r.dense_params + r.expert_params) /
                                           std::max(kBucketParams, kBucketParamsPerReplica * d(s.dp)));
  DataParallel out;
  // Bucketed reduce-scatters start as the last micro-batch's backward frees
  // each bucket's gradients (--overlap-grad-reduce): that backward hides
  // them but for the last bucket.
  // ZeRO-2 and -3 keep only their shard of the gradients, so every
  // micro-batch's backward reduce-scatters its own (DeepSpeed ZeRO-2,
  // FSDP): mbn reductions a step, each behind its own backward.
  const double reduction = both(reduce, grad_bytes);
  const double reductions = s.zero >= 2 ? s.mbn : 1;
  const double reduction_exposed = (settings_.overlap & NDS_OVERLAP_GRAD_REDUCE) != 0
                                       ? std::max(reduction / buckets, reduction - r.backward)
                                       : reduction;
  out.exposed += reductions * reduction_exposed;
  out.hidden += reductions * (reduction - reduction_exposed);
  if (s.zero >= 1) {
    const double gather = both(Collective::all_gather, param_bytes);
    const bool overlap = (settings_.overlap & NDS_OVERLAP_PARAM_GATHER) != 0;
    if (s.zero >= 3) {
      // Prefetched layer by layer behind the forward and the backward.
      const double exposed = overlap ? std::max(gather / buckets, gather - r.forward) +
                                           std::max(gather / buckets, gather - r.backward)
                                     : 2 * gather;
      out.exposed += s.mbn * exposed;
      out.hidden += s.mbn * (2 * gather - exposed);
    } else {
      // The next step's first forward hides the gathers (--overlap-param-gather).
      const double exposed = overlap ? std::max(gather / buckets, gather - r.forward) : gather;
      out.exposed += exposed;
      out.hidden += gather - exposed;
    }
  }
  // The optimizer step streams its shard of the states from HBM: each state
  // and the master copy read and written, the gradient read, the parameter
  // written; the fp8 weight copies are cast once a step (Transformer
  // Engine caches them over the micro-batches).
  const double shard = s.zero >= 1 ? s.op : 1;
  const double params =
      r.dense_params / shard + r.expert_params / std::max(1.0, shard * s.tp / (s.ep * s.etp));
  const double state_bytes = 2.0 * std::max(0, t.optimizer_states) * sdk::dtype_bytes(t.optimizer_dtype) +
                             (t.master_dtype == NDS_DTYPE_NONE ? 0 : 2.0 * sdk::dtype_bytes(t.master_dtype));
  out.optimizer = kernels_.memory(params * (state_bytes + grad_bytes + param_bytes)) +
                  kernels_.memory(r.fp8_params * (param_bytes + 2));
  return out;
}

TimeEstimate TimeModel::estimate(const nds_candidate& c, uint64_t devices) const {
  const nds_strategy& s = *c.strategy;
  const TrainerOverheads& o = settings_.overheads;
  // One pass over the ranks, no allocation: the slowest rank sets the pace,
  // the rank with the most to reduce or update sets DP and the optimizer.
  Work slowest;
  double slowest_slot = 0;
  DataParallel dp;
  LayerCache cache;
  for (int32_t index = 0; index < s.pp; ++index) {
    // A middle rank whose chunks hold the same layers of the same blocks as
    // the rank before it does the same work: most ranks of an even split.
    if (index > 1 && index + 1 < s.pp && same_work_as_previous(c, index)) continue;
    const Work r = rank_work(c, index, cache);
    const double slot = r.exposed() + r.layers * o.layer_s;
    if (index == 0 || slot > slowest_slot) slowest = r, slowest_slot = slot;
    const DataParallel rank_dp = data_parallel_and_optimizer(s, r);
    if (index == 0 || rank_dp.exposed + rank_dp.optimizer > dp.exposed + dp.optimizer) dp = rank_dp;
  }
  const double m = s.mbn, p = s.pp, v = s.vpp;
  TimeEstimate e;
  TimeParts& t = e.parts;
  t.forward = m * slowest.forward;
  t.backward = m * slowest.backward;
  t.recompute = m * slowest.recompute;
  t.tp = m * slowest.tp;
  t.cp = m * slowest.cp;
  t.ep = m * slowest.ep;
  t.pp = m * slowest.pp;
  e.hidden.tp = m * slowest.tp_hidden;
  e.hidden.cp = m * slowest.cp_hidden;
  e.hidden.ep = m * slowest.ep_hidden;
  e.hidden.pp = m * slowest.pp_hidden;
  e.hidden.dp = dp.hidden;
  e.weight_gradients_s = m * slowest.weight_gradients;
  // Pipeline bubble in micro-batch slots of the slowest rank (Narayanan et al.
  // 2021 §2.2): (p-1) for 1F1B and GPipe, (p-1)/v interleaved; ZB-V (Qi et al.
  // 2024) fills it but for F + B - 2W per stage, B and W each half the backward.
  switch (s.schedule) {
    case NDS_SCHEDULE_INTERLEAVED: t.bubble = (p - 1) / v * slowest_slot; break;
    case NDS_SCHEDULE_ZB_V:
      // F and B carry the layer's TP, CP and EP communication and B the
      // recompute that precedes it; W (the weight-gradient GEMMs) is the
      // rest of the backward and communicates nothing: T_F + T_B - 2·T_W =
      // forward + recompute + comm + (backward - W) - 2·W.
      t.bubble = (p - 1) * std::max(0.0, slowest.forward + slowest.recompute + slowest.tp + slowest.cp +
                                             slowest.ep + slowest.pp + slowest.layers * o.layer_s +
                                             slowest.backward - 3 * slowest.weight_gradients);
      break;
    default: t.bubble = (p - 1) * slowest_slot; break;
  }
  t.dp = dp.exposed;
  t.optimizer = dp.optimizer;
  // Trainer overheads (fitted): per layer and micro-batch, and per step (the
  // kernels' slowdown is in their times already); and the SMs the hidden
  // collectives take from the compute they overlap.
  auto sm_share = [&](uint64_t n, uint64_t stride) {
    return n <= 1 ? 0.0 : level_spanned(device_, n, stride) == 0 ? kNvlinkSmShare : kNetworkSmShare;
  };
  const uint64_t tp_n = static_cast<uint64_t>(s.tp), cp_n = static_cast<uint64_t>(s.cp);
  const double interference = e.hidden.tp * sm_share(tp_n, 1) + e.hidden.cp * sm_share(cp_n, tp_n) +
                              e.hidden.ep * sm_share(static_cast<uint64_t>(s.ep), static_cast<uint64_t>(s.etp)) +
                              e.hidden.dp * sm_share(static_cast<uint64_t>(s.dp) * cp_n, tp_n);
  t.overhead = m * slowest.layers * o.layer_s + o.step_s + interference;
  e.step_s = t.step();

  // DESIGN §8.7: 6 x non-embedding active parameters per token, 6·h·V for the
  // logits, 12·L·s·h_attn for attention scores and values (full s^2).
  const double tokens = d(model_.training.global_batch != NDS_UNKNOWN ? model_.training.global_batch
                                                                        : static_cast<int64_t>(s.dp) * s.mbs * s.mbn) *
                        d(model_.training.seq_len);
  const double vocab = d(model_.main.vocab_size != NDS_UNKNOWN ? model_.main.vocab_size : model_.main.padded_vocab_size);
  const double h = d(layer_block_.front()->hidden_size);
  e.model_flops_per_step =
      tokens * (6 * active_params_ + 6 * h * vocab * (1 + mtp_heads_) + 12 * d(model_.training.seq_len) * attention_width_);
  // HFU adds what recomputation runs again: full recompute a forward of the
  // recomputed layers, selective the attention core's forward (4·s·h_attn).
  double recomputed_share = 0, layers_total = static_cast<double>(layer_block_.size());
  for (int32_t r = 0; r < s.pp; ++r)
    for (int32_t k = 0; k < s.vpp; ++k)
      recomputed_share += c.chunk_recomputed_layers[static_cast<size_t>(r) * s.vpp + k] / layers_total;
  double extra = 0;
  if (s.recompute == NDS_RECOMPUTE_FULL)
    extra = recomputed_share * tokens * (2 * active_params_ + 4 * d(model_.training.seq_len) * attention_width_);
  else if (s.recompute == NDS_RECOMPUTE_SELECTIVE)
    extra = recomputed_share * tokens * 4 * d(model_.training.seq_len) * attention_width_;
  e.hardware_flops_per_step = e.model_flops_per_step + extra;
  // The compute dtype's dense peak (fp8's for an fp8 recipe, DESIGN §8.7).
  const double capacity = e.step_s * static_cast<double>(devices) * kernels_.linear().peak_flops_per_s;
  e.mfu = capacity > 0 ? e.model_flops_per_step / capacity : 0;
  e.model_flops_causal_per_step = e.model_flops_per_step - tokens * 6 * d(model_.training.seq_len) * attention_width_;
  e.mfu_causal = capacity > 0 ? e.model_flops_causal_per_step / capacity : 0;
  e.hfu = capacity > 0 ? e.hardware_flops_per_step / capacity : 0;
  e.tokens_per_s = e.step_s > 0 ? tokens / e.step_s : 0;
  return e;
}

}  // namespace ndsearch
