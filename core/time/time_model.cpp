// SPDX-License-Identifier: Apache-2.0
#include "core/time/time_model.hpp"

#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

#include "core/model/model_json.hpp"
#include "core/time/collectives.hpp"

namespace ndsearch {
namespace {

// Without a curve from the device, one GEMM reaches this fraction of the
// peak: the middle of the measured large-GEMM fractions of the shipped GPUs
// (0.60 to 0.86, plugins/common/devices/).
constexpr double kDefaultGemmEfficiency = 0.7;

// Elementwise traffic per token and layer, in elements of the compute dtype,
// forward (backward moves about twice as much): each of the two norms reads
// and writes h (4h), the two residual additions read 2h and write h (6h),
// each dropout reads and writes h and writes a mask (about 2.5h each).
constexpr double kElementwiseHidden = 4 + 6;
constexpr double kDropoutHidden = 2 * 2.5;

// The optimizer step reads and writes the master weights and both Adam
// moments (2 x 12 bytes per parameter in fp32), reads the gradient and writes
// the new parameter.
constexpr double kOptimizerStateBytes = 24;

double curve_at(const Curve& c, double x) {
  if (c.x.empty()) return kDefaultGemmEfficiency;
  if (x <= c.x.front()) return c.y.front();
  if (x >= c.x.back()) return c.y.back();
  const size_t i = static_cast<size_t>(std::upper_bound(c.x.begin(), c.x.end(), x) - c.x.begin());
  const double t = (x - c.x[i - 1]) / (c.x[i] - c.x[i - 1]);
  return c.y[i - 1] + t * (c.y[i] - c.y[i - 1]);
}

double d(int64_t v) {
  return static_cast<double>(v);
}

}  // namespace

// One pipeline rank's work for one micro-batch, summed over its chunks.
struct TimeModel::Rank {
  double forward = 0, backward = 0, recompute = 0, tp = 0, cp = 0, ep = 0, pp = 0;
  double dense_params = 0, expert_params = 0;  // held by this rank (its shard of TP/EP)
  double total() const { return forward + backward + recompute + tp + cp + ep + pp; }
};

// A layer's work depends on its block, whether it is recomputed and the
// strategy, not on its rank: one estimate prices each pair once (models with
// more blocks than this price the rest every time).
struct TimeModel::LayerCache {
  static constexpr uint32_t kBlocks = 16;
  std::array<Rank, 2 * kBlocks> work{};
  std::array<bool, 2 * kBlocks> known{};
};

TimeModel::TimeModel(const Model& model, const Device& device, CpModel* cp)
    : model_(model), device_(device), cp_(cp) {
  for (size_t i = 0; i < model.main.blocks.size(); ++i) {
    const nds_layer_block& b = model.main.blocks[i].c;
    if (b.kind == NDS_BLOCK_MTP) mtp_blocks_.push_back(static_cast<uint32_t>(i));
    if (b.kind != NDS_BLOCK_DECODER) continue;
    const uint32_t end = static_cast<uint32_t>(layer_block_.size() + static_cast<size_t>(b.layers));
    layer_block_.insert(layer_block_.end(), static_cast<size_t>(b.layers), &b);
    block_index_.insert(block_index_.end(), static_cast<size_t>(b.layers),
                        static_cast<uint32_t>(i));
    run_end_.resize(layer_block_.size(), end);
  }
  // The compute dtype's dense peak, else bf16's, else the first the device states.
  const char* wanted = dtype_name(model.training.compute_dtype);
  for (const char* dtype : {wanted, "bf16", "fp16"}) {
    if (dtype == nullptr || peak_flops_per_s_ > 0) continue;
    for (const DtypePeak& p : device.peaks)
      if (p.dtype == dtype)
        peak_flops_per_s_ = p.peak_flops_per_s, efficiency_ = &p.matmul_efficiency;
  }
  if (peak_flops_per_s_ == 0 && !device.peaks.empty()) {
    peak_flops_per_s_ = device.peaks.front().peak_flops_per_s;
    efficiency_ = &device.peaks.front().matmul_efficiency;
  }
  act_bytes_ = sdk::dtype_bytes(model.training.compute_dtype == NDS_DTYPE_UNKNOWN
                                    ? NDS_DTYPE_BF16
                                    : model.training.compute_dtype);
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
}

double TimeModel::gemm_seconds(double flops) const {
  if (flops <= 0) return 0;
  const double efficiency =
      efficiency_ == nullptr ? kDefaultGemmEfficiency : curve_at(*efficiency_, flops);
  return flops / (peak_flops_per_s_ * efficiency);
}

double TimeModel::gemm_seconds(double m, double n, double k, double count) const {
  const double flops = 2 * m * n * k;
  const double compute = count * gemm_seconds(flops);
  const double traffic = count * memory_seconds((m * k + k * n + m * n) * act_bytes_);
  return std::max(compute, traffic);
}

double TimeModel::memory_seconds(double bytes) const {
  return bytes / device_.memory_bandwidth_bytes_per_s;
}

TimeModel::Rank TimeModel::layer_work(const nds_candidate& c, const nds_layer_block& l,
                                      uint32_t block, bool is_recomputed) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp, b = act_bytes_;
  const double seq = d(model_.training.seq_len);
  const double tokens = s.mbs * seq / s.cp;  // per micro-batch on one device
  const uint64_t tp_n = static_cast<uint64_t>(s.tp);
  Rank r;
  const double h = d(l.hidden_size), heads = d(l.heads);
  const bool gated = l.ffn == NDS_FFN_SWIGLU;
  const double mlp_matrices = gated ? 3 : 2;
  // Forward matmul FLOPs of this device, each GEMM priced at its own size.
  double gemm = 0, core = 0;
  auto add = [&](double f) { gemm += gemm_seconds(f); };
  // Scores (QK^T) and values (PV) over every key, no causal halving. Flash
  // attention runs them as one fused kernel; without it they are batched
  // GEMMs, one per head and sequence, each s_q x s x d: priced by roofline,
  // they are memory-bound at head_dim 128 (A100's ridge is 153 FLOP/B).
  auto attention_core = [&](double qk_dim, double v_dim) {
    const double queries = seq / s.cp, instances = heads / tp * s.mbs;
    const double f = 2 * tokens * seq * heads * (qk_dim + v_dim) / tp;
    const double t = model_.main.flash_attention == 0
                         ? gemm_seconds(queries, seq, qk_dim, instances) +
                               gemm_seconds(queries, v_dim, seq, instances)
                         : gemm_seconds(f);
    gemm += t;
    core += t;
  };
  if (l.attention == NDS_ATTENTION_MLA) {
    const double qk = d(l.qk_nope_head_dim + l.qk_rope_head_dim), ql = d(l.q_lora_rank),
                 kvl = d(l.kv_lora_rank);
    if (ql > 0) {
      add(2 * tokens * h * ql);  // down-projections stay whole on each TP rank
      add(2 * tokens * ql * heads * qk / tp);
    } else {
      add(2 * tokens * h * heads * qk / tp);
    }
    add(2 * tokens * h * (kvl + d(l.qk_rope_head_dim)));
    add(2 * tokens * kvl * heads * d(l.qk_nope_head_dim + l.v_head_dim) / tp);
    add(2 * tokens * heads * d(l.v_head_dim) * h / tp);
    attention_core(qk, d(l.v_head_dim));
  } else {
    const double q = heads * d(l.head_dim), kv = d(l.kv_heads * l.head_dim),
                 o = heads * d(l.v_head_dim);
    add(2 * tokens * h * (q + 2 * kv) / tp);
    add(2 * tokens * o * h / tp);
    attention_core(d(l.head_dim), d(l.v_head_dim));
  }
  if (l.ffn_hidden_size > 0) add(2 * tokens * h * d(l.ffn_hidden_size) * mlp_matrices / tp);
  if (l.experts > 0) {
    add(2 * tokens * h * d(l.experts));  // the router, on every rank
    const double capacity = l.capacity_factor > 0 ? l.capacity_factor : 1;
    const double routed_tokens = tokens * d(l.experts_per_token) * capacity;
    const double local_experts = std::max(1.0, d(l.experts) / s.ep);
    // With SP the router splits the micro-batch's tokens over the tp ranks and
    // each expert's weights over etp: a device multiplies tokens/tp of them
    // whatever etp is (etp < tp only changes who holds which expert).
    const double expert_flops =
        2 * routed_tokens * h * d(l.moe_ffn_hidden_size) * mlp_matrices / tp;
    // One GEMM per local expert, or one grouped GEMM.
    const double gemms = l.grouped_gemm == 1 ? 1 : local_experts;
    for (double g = 0; g < gemms; ++g) add(expert_flops / gemms);
  }
  if (l.shared_experts > 0)
    add(2 * tokens * h * d(l.shared_expert_ffn_hidden_size) * mlp_matrices * d(l.shared_experts) /
        tp);
  // Memory-bound work: norms, residuals, dropout, the MLP activation and,
  // without flash attention, the softmax over every key.
  const double split = s.sp == 1 ? tp : 1;
  double elements =
      tokens * h * (kElementwiseHidden + (l.hidden_dropout > 0 ? kDropoutHidden : 0)) / split;
  const double ffn_width =
      d(std::max<int64_t>(l.ffn_hidden_size, 0)) / tp +
      (l.experts > 0 ? d(l.experts_per_token) * d(l.moe_ffn_hidden_size) / tp : 0);
  elements += tokens * ffn_width * (gated ? 3 : 2);
  double softmax = 0;
  if (model_.main.flash_attention == 0)
    softmax = memory_seconds(tokens * seq * heads / tp * (l.attention_dropout > 0 ? 5 : 2) * b);
  const double memory = memory_seconds(elements * b) + softmax;
  const double forward = gemm + memory;
  r.forward += forward;
  r.backward += 2 * gemm + 2 * memory;  // input and weight gradients
  if (is_recomputed && s.recompute == NDS_RECOMPUTE_FULL) {
    r.recompute += forward;
  } else if (is_recomputed && s.recompute == NDS_RECOMPUTE_SELECTIVE) {
    r.recompute += core + softmax;  // the attention core (Korthikanti et al. 2022 §5)
  }
  // Tensor parallelism: two collectives per layer each way (attention and
  // MLP), all-gather + reduce-scatter with SP, all-reduce without.
  const double activation = tokens * h * b;
  const double tp_layer =
      s.sp == 1 ? 2 * (collective_seconds(device_, Collective::all_gather, tp_n, 1, activation) +
                       collective_seconds(device_, Collective::reduce_scatter, tp_n, 1, activation))
                : 2 * collective_seconds(device_, Collective::all_reduce, tp_n, 1, activation);
  const double tp_exposed = (model_.training.overlap & NDS_OVERLAP_TP_COMM) != 0 ? 0.5 : 1.0;
  // Forward and backward; a fully recomputed layer runs its forward, and
  // so its forward collectives, a second time.
  const double passes = 2 + (is_recomputed && s.recompute == NDS_RECOMPUTE_FULL ? 1 : 0);
  r.tp += passes * tp_layer * tp_exposed;
  if (l.experts > 0 && s.ep > 1) {
    // Dispatch and combine all-to-alls of the tokens a device routes (its
    // tokens/tp share, as Megatron's sequence-parallel MoE dispatch sends),
    // each way; with etp > 1 an all-gather over the etp ranks before the
    // experts and a reduce-scatter after.
    const double routed = tokens / tp * d(l.experts_per_token) * h * b;
    double ep_layer = 2 * collective_seconds(device_, Collective::all_to_all, static_cast<uint64_t>(s.ep),
                                             static_cast<uint64_t>(s.etp), routed);
    if (s.etp > 1)
      ep_layer += collective_seconds(device_, Collective::all_gather, static_cast<uint64_t>(s.etp), 1,
                                     routed * s.etp) +
                  collective_seconds(device_, Collective::reduce_scatter, static_cast<uint64_t>(s.etp), 1,
                                     routed * s.etp);
    r.ep += passes * ep_layer;
  }
  if (s.cp > 1 && cp_ != nullptr) {
    const CpCost cost = cp_->evaluate(c, block);
    for (uint32_t k = 0; k < cost.comm_count; ++k) {
      const nds_cp_comm& comm = cost.comms[k];
      const Collective kind =
          comm.collective == NDS_COLLECTIVE_ALL_TO_ALL       ? Collective::all_to_all
          : comm.collective == NDS_COLLECTIVE_ALL_GATHER     ? Collective::all_gather
          : comm.collective == NDS_COLLECTIVE_REDUCE_SCATTER ? Collective::reduce_scatter
          : comm.collective == NDS_COLLECTIVE_ALL_REDUCE     ? Collective::all_reduce
                                                             : Collective::send_recv;
      const double exposed = 1 - comm.overlap_fraction;
      // A fully recomputed layer runs its forward, and so its CP exchange, twice.
      const double forward_runs = is_recomputed && s.recompute == NDS_RECOMPUTE_FULL ? 2 : 1;
      for (const auto& [bytes, pass_steps, runs] :
           {std::tuple{comm.forward_bytes, comm.forward_steps, forward_runs},
            std::tuple{comm.backward_bytes, comm.backward_steps, 1.0}}) {
        if (kind == Collective::send_recv) {
          // The bytes arrive in steps around the ring, each a message.
          const double steps = std::max<uint32_t>(1, pass_steps);
          r.cp += runs * exposed * steps *
                  collective_seconds(device_, kind, comm.group_size, comm.group_stride, bytes / steps);
        } else {
          // The plugin states what one device sends; a ring moves (n-1)/n of the whole.
          const double n = comm.group_size;
          const double whole = n > 1 ? bytes * n / (n - 1) : 0;
          r.cp += runs * exposed *
                  collective_seconds(device_, kind, comm.group_size, comm.group_stride, whole);
        }
      }
    }
  }
  const sdk::LayerParameters p = sdk::layer_parameters(l);
  r.dense_params += (p.attention + p.dense_mlp + p.shared_experts) / tp + p.norms + p.router;
  r.expert_params += p.routed_experts / (static_cast<double>(s.ep) * s.etp);
  return r;
}

TimeModel::Rank TimeModel::rank_work(const nds_candidate& c, int32_t rank, LayerCache& cache) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp, b = act_bytes_;
  const double seq = d(model_.training.seq_len);
  const double tokens = s.mbs * seq / s.cp;  // per micro-batch on one device
  const double vocab =
      d(model_.main.padded_vocab_size != NDS_UNKNOWN ? model_.main.padded_vocab_size
                                                     : model_.main.vocab_size);
  Rank r;
  const uint32_t layers = static_cast<uint32_t>(layer_block_.size());
  for (int32_t chunk = 0; chunk < s.vpp; ++chunk) {
    const size_t i = static_cast<size_t>(rank) * s.vpp + chunk;
    const uint32_t first = c.chunk_first_layer[i], count = c.chunk_layers[i];
    const uint32_t recomputed = std::min(c.chunk_recomputed_layers[i], count);
    // Layers of one block are alike: price one, count the run (the chunk's
    // first `recomputed` layers apart, since they differ in recompute).
    for (uint32_t layer = first; layer < first + count;) {
      const bool is_recomputed =
          layer - first < recomputed;  // the chunk's first layers (reference §5.1)
      const uint32_t boundary = is_recomputed ? first + recomputed : first + count;
      const uint32_t run_end = std::min(boundary, run_end_[layer]);
      const double n = run_end - layer;
      const uint32_t block = block_index_[layer];
      const size_t slot = 2 * static_cast<size_t>(block) + (is_recomputed ? 1 : 0);
      Rank computed;
      const bool cached = block < LayerCache::kBlocks;
      if (!cached || !cache.known[slot]) {
        computed = layer_work(c, *layer_block_[layer], block, is_recomputed);
        if (cached) {
          cache.work[slot] = computed;
          cache.known[slot] = true;
        }
      }
      const Rank& one = cached ? cache.work[slot] : computed;
      r.forward += n * one.forward;
      r.backward += n * one.backward;
      r.recompute += n * one.recompute;
      r.tp += n * one.tp;
      r.cp += n * one.cp;
      r.ep += n * one.ep;
      r.dense_params += n * one.dense_params;
      r.expert_params += n * one.expert_params;
      layer = run_end;
    }
    // The output head's logits on the chunk holding the last layer; the
    // embedding's gather is negligible.
    if (count > 0 && first + count == layers) {
      const double logits = 2 * tokens * d(layer_block_.back()->hidden_size) * vocab / tp;
      r.forward += gemm_seconds(logits);
      r.backward += 2 * gemm_seconds(logits);
      r.dense_params += vocab * d(layer_block_.back()->hidden_size) / tp;
      // The MTP modules follow the last layer on its rank (Megatron's and
      // MindSpeed's placement): each a layer, its projection and the head again.
      for (uint32_t block : mtp_blocks_) {
        const nds_layer_block& l = model_.main.blocks[block].c;
        const double h = d(l.hidden_size), n = d(l.layers);
        const Rank one = layer_work(c, l, block, false);
        const double extra = gemm_seconds(2 * tokens * 2 * h * h / tp) + gemm_seconds(logits);
        r.forward += n * (one.forward + extra);
        r.backward += n * (one.backward + 2 * extra);
        r.tp += n * one.tp;
        r.cp += n * one.cp;
        r.ep += n * one.ep;
        r.dense_params += n * (one.dense_params + 2 * h * h / tp);
        r.expert_params += n * one.expert_params;
      }
    }
    if (count > 0 && first == 0)
      r.dense_params += vocab * d(layer_block_.front()->hidden_size) / tp;
  }
  // Pipeline: each micro-batch sends its activations forward and receives
  // their gradient on every chunk boundary: on the critical path.
  if (s.pp > 1) {
    const double h = d(layer_block_.front()->hidden_size);
    const double message = tokens * h * b / (s.sp == 1 ? tp : 1);
    const uint64_t stride = static_cast<uint64_t>(s.tp) * s.cp * s.dp;
    r.pp += 2 * s.vpp * collective_seconds(device_, Collective::send_recv, 2, stride, message);
  }
  return r;
}

std::pair<double, double> TimeModel::data_parallel_and_optimizer(const nds_strategy& s,
                                                                 const Rank& r) const {
  // Data parallelism: gradients reduced once per step over the dp·cp
  // replicas of each dense parameter (reduce-scatter with ZeRO, all-reduce
  // without) and over the expert-data-parallel group for experts; ZeRO-1/2
  // then all-gather the updated parameters once; ZeRO-3 keeps only its shard,
  // so it gathers every parameter before each micro-batch's forward and again
  // before its backward: 2·mbn gathers a step.
  const double grad_bytes = sdk::dtype_bytes(model_.training.grads_dtype);
  const double param_bytes = sdk::dtype_bytes(model_.training.params_dtype);
  const uint64_t replicas = static_cast<uint64_t>(s.dp) * s.cp;
  const uint64_t expert_replicas = std::max<uint64_t>(
      1, replicas * static_cast<uint64_t>(s.tp) / (static_cast<uint64_t>(s.ep) * s.etp));
  const uint64_t dense_stride = static_cast<uint64_t>(s.tp);
  const uint64_t expert_stride = static_cast<uint64_t>(s.ep) * s.etp;
  const Collective reduce = s.zero >= 1 ? Collective::reduce_scatter : Collective::all_reduce;
  double reduction =
      collective_seconds(device_, reduce, replicas, dense_stride, r.dense_params * grad_bytes) +
      collective_seconds(device_, reduce, expert_replicas, expert_stride,
                         r.expert_params * grad_bytes);
  // Megatron-LM overlaps the gradient reduction with the last micro-batch's
  // backward when the config says so (--overlap-grad-reduce); the gathers
  // after the optimizer step have nothing to hide behind.
  if ((model_.training.overlap & NDS_OVERLAP_GRAD_REDUCE) != 0)
    reduction = std::max(0.0, reduction - r.backward);
  double gathers = 0;
  if (s.zero >= 1) {
    const double count = s.zero >= 3 ? 2.0 * s.mbn : 1.0;
    gathers = count * (collective_seconds(device_, Collective::all_gather, replicas, dense_stride,
                                          r.dense_params * param_bytes) +
                       collective_seconds(device_, Collective::all_gather, expert_replicas,
                                          expert_stride, r.expert_params * param_bytes));
  }
  const double rank_dp = reduction + gathers;
  const double shard = s.zero >= 1 ? s.op : 1;
  const double params =
      r.dense_params / shard + r.expert_params / std::max(1.0, shard * s.tp / (s.ep * s.etp));
  return {rank_dp, memory_seconds(params * (kOptimizerStateBytes + grad_bytes + param_bytes))};
}

TimeEstimate TimeModel::estimate(const nds_candidate& c, uint64_t devices) const {
  const nds_strategy& s = *c.strategy;
  // One pass over the ranks, no allocation: the slowest rank sets the pace,
  // the rank with the most to reduce or update sets DP and the optimizer.
  Rank slowest;
  double dp = 0, optimizer = 0;
  LayerCache cache;
  for (int32_t index = 0; index < s.pp; ++index) {
    const Rank r = rank_work(c, index, cache);
    if (index == 0 || r.total() > slowest.total()) slowest = r;
    const auto [rank_dp, rank_optimizer] = data_parallel_and_optimizer(s, r);
    dp = std::max(dp, rank_dp);
    optimizer = std::max(optimizer, rank_optimizer);
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
  // Pipeline bubble in micro-batch slots of the slowest rank (Narayanan et al.
  // 2021 §2.2): (p-1) for 1F1B and GPipe, (p-1)/v interleaved; ZB-V (Qi et al.
  // 2024) fills it but for F + B - 2W per stage, B and W each half the backward.
  const double slot = slowest.total();
  switch (s.schedule) {
    case NDS_SCHEDULE_INTERLEAVED: t.bubble = (p - 1) / v * slot; break;
    case NDS_SCHEDULE_ZB_V:
      // F and B carry the layer's TP, CP and EP communication and B the
      // recompute that precedes it; W (the weight gradients) communicates
      // nothing: T_F + T_B - 2·T_W = forward + recompute + comm - backward/2.
      t.bubble = (p - 1) * std::max(0.0, slowest.forward + slowest.recompute + slowest.tp + slowest.cp +
                                                 slowest.ep - slowest.backward / 2);
      break;
    default: t.bubble = (p - 1) * slot; break;
  }
  t.dp = dp;
  t.optimizer = optimizer;
  e.step_s = t.step();

  // DESIGN §8.7: 6 x non-embedding active parameters per token, 6·h·V for the
  // logits, 12·L·s·h_attn for attention scores and values (full s^2).
  const double tokens =
      d(model_.training.global_batch != NDS_UNKNOWN ? model_.training.global_batch
                                                    : static_cast<int64_t>(s.dp) * s.mbs * s.mbn) *
      d(model_.training.seq_len);
  const double active = active_params_, attention_width = attention_width_;
  const double vocab = d(model_.main.vocab_size != NDS_UNKNOWN ? model_.main.vocab_size
                                                               : model_.main.padded_vocab_size);
  const double h = d(layer_block_.front()->hidden_size);
  e.model_flops_per_step =
      tokens * (6 * active + 6 * h * vocab * (1 + mtp_heads_) + 12 * d(model_.training.seq_len) * attention_width);
  // HFU adds what recomputation runs again: full recompute a forward of the
  // recomputed layers, selective the attention core's forward (4·s·h_attn).
  double recomputed_share = 0, layers_total = static_cast<double>(layer_block_.size());
  for (int32_t r = 0; r < s.pp; ++r)
    for (int32_t k = 0; k < s.vpp; ++k)
      recomputed_share +=
          c.chunk_recomputed_layers[static_cast<size_t>(r) * s.vpp + k] / layers_total;
  double extra = 0;
  if (s.recompute == NDS_RECOMPUTE_FULL)
    extra =
        recomputed_share * tokens * (2 * active + 4 * d(model_.training.seq_len) * attention_width);
  else if (s.recompute == NDS_RECOMPUTE_SELECTIVE)
    extra = recomputed_share * tokens * 4 * d(model_.training.seq_len) * attention_width;
  e.hardware_flops_per_step = e.model_flops_per_step + extra;
  const double capacity = e.step_s * static_cast<double>(devices) * peak_flops_per_s_;
  e.mfu = capacity > 0 ? e.model_flops_per_step / capacity : 0;
  e.hfu = capacity > 0 ? e.hardware_flops_per_step / capacity : 0;
  e.tokens_per_s = e.step_s > 0 ? tokens / e.step_s : 0;
  return e;
}

}  // namespace ndsearch
