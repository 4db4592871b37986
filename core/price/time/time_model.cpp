// SPDX-License-Identifier: Apache-2.0
#include "core/price/time/time_model.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <tuple>
#include <utility>

#include "core/hardware/topology.hpp"
#include "core/model/model_json.hpp"
#include "core/model/schedule_names.hpp"
#include "core/model/towers.hpp"
#include "core/price/time/collectives.hpp"
#include "core/price/time/work.hpp"

namespace ndsearch {
namespace {

using timing::d;

// What a layer computes under its option: an offloaded layer as a kept one.
nds_layer_option compute_option(int32_t option) {
  return option == NDS_LAYER_SELECTIVE || option == NDS_LAYER_FULL ? option : NDS_LAYER_KEEP;
}

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

// Numbers for TimeModel::id_, across threads.
uint64_t next_model_id() {
  static std::atomic<uint64_t> last{0};
  return ++last;
}

}  // namespace

TimeModel::TimeModel(const CompiledModel& compiled, const CpModel* cp)
    : compiled_(compiled),
      id_(next_model_id()),
      cp_(cp),
      kernels_(compiled.device, compiled.settings.linear_dtype, compiled.settings.high_dtype,
               compiled.settings.activation_bytes, 1 + compiled.settings.overheads.kernel_slowdown,
               compiled.calibration, compiled.model.training.attention_kernel) {
  const TrainerSettings& settings = compiled.settings;
  // An fp8 GEMM's input is cast from the activation dtype with a transposed
  // copy for the other gradient GEMM (Transformer Engine's cast_transpose on
  // Hopper, which needs TN layouts): read the activation, write two fp8
  // copies; current scaling reads it once more for its amax first.
  if (kernels_.linear_dtype() == "fp8")
    cast_bytes_ = settings.activation_bytes + 2 +
                  (settings.fp8_recipe == NDS_FP8_CURRENT ? settings.activation_bytes : 0);
  // Every assumption in words, in the order the outputs list them.
  assumptions_ = settings.assumptions;
  assumptions_.push_back(kernels_.assumptions());
  if (cp_ != nullptr) assumptions_.push_back(cp_->assumption(compiled.model));
  assumptions_.insert(assumptions_.end(), compiled.assumptions.begin(), compiled.assumptions.end());
}

const TimeModel::Work& TimeModel::cached_layer(const nds_candidate& c, uint32_t block,
                                               nds_layer_option option, LayerCache& cache,
                                               LayerCache* shapes, Work& scratch) const {
  const nds_layer_block& l = compiled_.model.main.blocks[block].c;
  if (block >= LayerCache::kBlocks) return scratch = layer_work(c, l, block, option);
  const size_t slot =
      LayerCache::kOptions * static_cast<size_t>(block) + static_cast<size_t>(option);
  if (cache.known[slot]) return cache.work[slot].work;
  Work& w = cache.work[slot].work;
  if (shapes == nullptr) {
    w = layer_work(c, l, block, option);
  } else {
    if (!shapes->known[slot]) {
      shapes->work[slot].work = shaped_layer_work(c, l, option, decoder_span(*c.strategy));
      shapes->known[slot] = true;
    }
    w = shapes->work[slot].work;
    cp_comm(w, c, block, cp_passes(option));  // nothing where cp is 1
  }
  cache.known[slot] = true;
  return w;
}

// Chunk `i`'s decoder layers into `r`, each run of alike layers priced once.
void TimeModel::add_chunk_layers(const nds_candidate& c, size_t i, LayerCache& cache,
                                 LayerCache* shapes, Work& r) const {
  const nds_strategy& s = *c.strategy;
  const uint32_t first = c.chunk_first_layer[i];
  const uint32_t count = c.chunk_layers[i];
  const uint32_t recomputed = std::min(c.chunk_recomputed_layers[i], count);
  // Layers of one block are alike: price one, count the run (the chunk's
  // first `recomputed` layers apart, since they differ in recompute; or,
  // when a recompute strategy chose per layer, each run of one option).
  for (uint32_t layer = first; layer < first + count;) {
    nds_layer_option option = NDS_LAYER_KEEP;
    uint32_t boundary = first + count;
    if (c.layer_option != nullptr) {
      option = compute_option(c.layer_option[layer]);
      boundary = layer + 1;
      while (boundary < first + count && compute_option(c.layer_option[boundary]) == option)
        ++boundary;
    } else if (layer - first < recomputed) {  // the chunk's first layers (reference §5.1)
      option = s.recompute;
      boundary = first + recomputed;
    }
    const uint32_t run_end = std::min(boundary, compiled_.layers.run_end[layer]);
    Work scratch;
    r.add(cached_layer(c, compiled_.layers.block_index[layer], option, cache, shapes, scratch),
          run_end - layer);
    layer = run_end;
  }
}

// The output head and the MTP modules into `r`, on the chunk holding the
// last layer (`vocab` rows over `tp` ranks, `tokens` per micro-batch).
void TimeModel::add_head_and_mtp(const nds_candidate& c, double tokens, double vocab, double tp,
                                 LayerCache& cache, LayerCache* shapes, Work& r) const {
  // The output head's logits and the cross entropy over the vocabulary on
  // the chunk holding the last layer; the embedding's gather is negligible.
  const double h = d(compiled_.layers.block.back()->hidden_size);
  const GemmRate& high = kernels_.high();
  const double v = vocab / tp;
  Work head;
  // The loss's passes over the logits as the trainer runs them.
  head.forward = kernels_.gemm(high, tokens, v, h) +
                 kernels_.memory(tokens * v * compiled_.settings.loss.forward);
  head.backward = kernels_.gemm(high, tokens, h, v) + kernels_.gemm(high, h, v, tokens) +
                  kernels_.memory(tokens * v * compiled_.settings.loss.backward);
  r.add(head, 1);
  // The MTP modules follow the last layer on its rank (Megatron's and
  // MindSpeed's placement): each a layer, its projection and the head again.
  for (uint32_t block : compiled_.layers.mtp_blocks) {
    Work scratch;
    Work one = cached_layer(c, block, NDS_LAYER_KEEP, cache, shapes, scratch);
    one.add(head, 1);
    r.add(one, d(compiled_.model.main.blocks[block].c.layers));
  }
}

// One chunk's seconds: what `r` gained since `before`, its exposed
// communication and overhead shared between forward and backward as its compute is.
inline ChunkTimes TimeModel::chunk_seconds(const Work& r, const Work& before) {
  const double forward = r.forward - before.forward;
  const double backward = r.backward - before.backward + r.recompute - before.recompute;
  const double busy = r.exposed() - before.exposed() + r.host - before.host;
  const double forward_share = forward + backward > 0 ? forward / (forward + backward) : 0.5;
  return {busy * forward_share, busy * (1 - forward_share), r.recompute - before.recompute, 0};
}

// The embedding's and the output head's parameters into `r.dense_params`,
// for a rank holding either.
void TimeModel::add_edge_params(double vocab, double tp, bool holds_embedding, bool holds_head,
                                Work& r) const {
  // The parameters the weights-and-optimizer pass counts beside the layers':
  // the embedding (and learned positions) on the rank with the first layer;
  // on the rank with the last, the output head (tied to the embedding, one
  // copy where one rank holds both), the final norm (weight, and bias for
  // LayerNorm) and the MTP modules' embedding copy (untied tables).
  const double h = d(compiled_.layers.block.front()->hidden_size);
  const bool tied = compiled_.model.main.tied_embeddings == 1;
  if (holds_embedding) r.dense_params += vocab * h / tp + compiled_.layers.learned_positions * h;
  if (holds_head) {
    if (!(tied && holds_embedding)) r.dense_params += vocab * h / tp;
    r.dense_params += (compiled_.layers.block.front()->norm == NDS_NORM_LAYERNORM ? 2 : 1) * h;
    if (!compiled_.layers.mtp_blocks.empty() && !holds_embedding && !tied)
      r.dense_params += vocab * h / tp;
  }
}

// The pipeline's sends into `r` (and each chunk's share into `chunks`), for pp > 1.
void TimeModel::add_pipeline_sends(const nds_strategy& s, double tokens, Work& r,
                                   ChunkTimes* chunks) const {
  // Pipeline: each micro-batch sends its activations forward and receives
  // their gradient on every chunk boundary, each TP rank its 1/tp of them
  // (split by SP, or without it by Megatron's scatter-gather of pipeline
  // tensors: Narayanan et al. 2021 §4.1). The interleaved schedule with p2p
  // overlap posts them while the next chunk computes (Megatron-Core's
  // overlap_p2p_comm): only their latency stays on the critical path.
  const double tp = s.tp;
  const double b = compiled_.settings.activation_bytes;
  const double h = d(compiled_.layers.block.front()->hidden_size);
  const double message = tokens * h * b / tp;
  const uint64_t stride = static_cast<uint64_t>(s.tp) * s.cp * s.dp;
  const double total = 2 * s.vpp * comm(CommPart::pp, Collective::send_recv, 2, stride, message);
  const bool overlap = (compiled_.settings.overlap & NDS_OVERLAP_P2P) != 0 && s.vpp > 1;
  const double exposed =
      overlap ? 2 * s.vpp * comm(CommPart::pp, Collective::send_recv, 2, stride, 0) : total;
  r.pp += exposed;
  r.pp_hidden += total - exposed;
  if (chunks != nullptr)  // each chunk sends its activations and their gradient once
    for (int32_t chunk = 0; chunk < s.vpp; ++chunk) {
      const double send = exposed / (2 * s.vpp);
      chunks[chunk].forward += send, chunks[chunk].backward += send, chunks[chunk].send = send;
    }
}

TimeModel::Work TimeModel::rank_work(const nds_candidate& c, int32_t rank, LayerCache& cache,
                                     LayerCache* shapes, ChunkTimes* chunks) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp;
  const double tokens = micro_batch_tokens(s);
  // The rows at this tp: the trainer's padding anew where it pads per tp.
  const double vocab = sdk::vocab_rows(d(compiled_.model.main.vocab_size),
                                       d(compiled_.model.main.padded_vocab_size != NDS_UNKNOWN
                                             ? compiled_.model.main.padded_vocab_size
                                             : compiled_.model.main.vocab_size),
                                       compiled_.model.training, s.tp);
  Work r;
  const auto layers = static_cast<uint32_t>(compiled_.layers.block.size());
  bool holds_embedding = false, holds_head = false;
  for (int32_t chunk = 0; chunk < s.vpp; ++chunk) {
    const size_t i = static_cast<size_t>(rank) * s.vpp + chunk;
    const uint32_t first = c.chunk_first_layer[i], count = c.chunk_layers[i];
    const Work before = r;
    add_chunk_layers(c, i, cache, shapes, r);
    // The vision towers feed the embedding's chunk (their output takes the
    // image tokens' places in its sequence: no pipeline send).
    if (count > 0 && first == 0 && !compiled_.model.submodels.empty()) {
      Work scratch;
      r.add(cached_towers(c, cache, shapes, scratch), 1);
    }
    if (count > 0 && first + count == layers)
      add_head_and_mtp(c, tokens, vocab, tp, cache, shapes, r);
    if (chunks != nullptr) chunks[chunk] = chunk_seconds(r, before);
    holds_embedding = holds_embedding || (count > 0 && first == 0);
    holds_head = holds_head || (count > 0 && first + count == layers);
  }
  add_edge_params(vocab, tp, holds_embedding, holds_head, r);
  if (s.pp > 1) add_pipeline_sends(s, tokens, r, chunks);
  return r;
}

double offload_exposed_s(double copy_bytes, const OffloadCopies& link, double forward_s,
                         double backward_s) {
  if (copy_bytes <= 0 || link.link_bytes_per_s <= 0) return 0;
  const double copy_s = copy_bytes / link.link_bytes_per_s;
  return std::max(0.0, copy_s - link.overlap * forward_s) +
         std::max(0.0, copy_s - link.overlap * backward_s);
}

TimeModel::RankCompute TimeModel::rank_compute(const nds_candidate& c, int32_t rank) const {
  LayerCache cache;
  const Work r = rank_work(c, rank, cache);
  return {r.forward, r.backward};
}

double TimeModel::layer_extra_s(const nds_candidate& c, uint32_t block,
                                nds_layer_option option) const {
  const nds_layer_block& l = compiled_.model.main.blocks[block].c;
  return layer_work(c, l, block, option).exposed() -
         layer_work(c, l, block, NDS_LAYER_KEEP).exposed();
}

bool TimeModel::same_work_as_previous(const nds_candidate& c, int32_t rank) const {
  const nds_strategy& s = *c.strategy;
  const auto layers = static_cast<uint32_t>(compiled_.layers.block.size());
  for (int32_t chunk = 0; chunk < s.vpp; ++chunk) {
    const size_t i = static_cast<size_t>(rank) * s.vpp + chunk,
                 before = i - static_cast<size_t>(s.vpp);
    const uint32_t count = c.chunk_layers[i];
    if (count != c.chunk_layers[before] ||
        c.chunk_recomputed_layers[i] != c.chunk_recomputed_layers[before])
      return false;
    if (count == 0) continue;
    // Neither holds the embedding, the output head or the MTP modules.
    for (const size_t k : {i, before})
      if (c.chunk_first_layer[k] == 0 || c.chunk_first_layer[k] + count == layers) return false;
    // Both chunks inside one block each, the same block.
    const uint32_t first = c.chunk_first_layer[i], other = c.chunk_first_layer[before];
    const uint32_t block = compiled_.layers.block_index[first];
    if (compiled_.layers.block_index[first + count - 1] != block ||
        compiled_.layers.block_index[other] != block ||
        compiled_.layers.block_index[other + count - 1] != block)
      return false;
    // Layer by layer the same recompute options, where a strategy chose them.
    if (c.layer_option != nullptr &&
        !std::equal(c.layer_option + first, c.layer_option + first + count, c.layer_option + other))
      return false;
  }
  return true;
}

// One DP collective of `kind` over the dense parameters' replicas plus the
// same over the experts' (bytes per parameter given), as both groups run it.
double TimeModel::dense_and_expert_collective(const nds_strategy& s, const Work& r, Collective kind,
                                              double bytes_per_param) const {
  const uint64_t replicas = static_cast<uint64_t>(s.dp) * s.cp;
  const uint64_t expert_replicas = std::max<uint64_t>(
      1, replicas * static_cast<uint64_t>(s.tp) / (static_cast<uint64_t>(s.ep) * s.etp));
  const auto dense_stride = static_cast<uint64_t>(s.tp);
  const uint64_t expert_stride = static_cast<uint64_t>(s.ep) * s.etp;
  return comm(CommPart::dp, kind, replicas, dense_stride, r.dense_params * bytes_per_param) +
         comm(CommPart::dp, kind, expert_replicas, expert_stride,
              r.expert_params * bytes_per_param);
}

// ZeRO's parameter all-gathers into `out`: per micro-batch's forward and
// backward (ZeRO-3 not keeping them), else once a step behind the first forward.
void TimeModel::parameter_gathers(const nds_strategy& s, const Work& r, bool keeps, double buckets,
                                  double param_bytes, DataParallel& out) const {
  const double gather = dense_and_expert_collective(s, r, Collective::all_gather, param_bytes);
  const bool overlap = (compiled_.settings.overlap & NDS_OVERLAP_PARAM_GATHER) != 0;
  if (s.zero >= 3 && !keeps) {
    // Prefetched layer by layer behind the forward and the backward.
    const double exposed = overlap ? std::max(gather / buckets, gather - r.forward) +
                                         std::max(gather / buckets, gather - r.backward)
                                   : 2 * gather;
    out.exposed += s.mbn * exposed;
    out.hidden += s.mbn * (2 * gather - exposed);
  } else {
    // The next step's first forward hides the gathers (--overlap-param-gather,
    // or FSDP's prefetch of the kept layers).
    const double exposed = overlap ? std::max(gather / buckets, gather - r.forward) : gather;
    out.exposed += exposed;
    out.hidden += gather - exposed;
  }
}

// The optimizer step's seconds into `out` (and, of them, what swapped
// states' copies add): streaming its shard of the states through HBM.
void TimeModel::optimizer_step(const nds_strategy& s, const Work& r, double grad_bytes,
                               double param_bytes, DataParallel& out) const {
  // The optimizer step streams its shard of the states from HBM: each state
  // and the master copy read and written, the gradient read, the parameter
  // written; the fp8 weight copies are cast once a step (Transformer
  // Engine caches them over the micro-batches).
  const double shard = s.zero >= 1 ? s.op : 1;
  const double params =
      r.dense_params / shard + r.expert_params / std::max(1.0, shard * s.tp / (s.ep * s.etp));
  // As the memory pass counts them.
  const double state_bytes = 2 * sdk::optimizer_bytes(compiled_.model.training).total();
  const double update = kernels_.memory(params * (state_bytes + grad_bytes + param_bytes));
  // Swapped, the states and the master copy (read once and written once
  // above: half of state_bytes) come in from the host and go back out.
  const double swapped = compiled_.swap.link_bytes_per_s > 0
                             ? swapped_update_s(params * state_bytes / 2, update, compiled_.swap)
                             : update;
  out.swap = swapped - update;
  out.optimizer = swapped + kernels_.memory(r.fp8_params * (param_bytes + 2));
}

TimeModel::DataParallel TimeModel::data_parallel_and_optimizer(const nds_strategy& s,
                                                               const Work& r) const {
  // Gradients are reduced once per step over the dp·cp replicas of each
  // dense parameter (reduce-scatter with ZeRO, all-reduce without) and over
  // the expert-data-parallel group for experts; ZeRO-1/2 then all-gather the
  // updated parameters once; ZeRO-3 keeps only its shard, so it gathers
  // every parameter before each micro-batch's forward and again before its
  // backward: 2·mbn gathers a step. Unless it keeps what it gathered
  // (nds_training.fsdp_holding, FSDP2 with reshard_after_forward off, and
  // MindSpore's parallel optimizer): gathered once, before the step's first
  // forward, and the unsharded gradients reduced once, after the last
  // backward (torch/distributed/pipelining/stage.py turns gradient sync and
  // resharding after backward off for all but the last micro-batch;
  // MindFormers' accu_grads accumulate whole), or, sharded (ABI 1.12),
  // reduce-scattered after each micro-batch's backward.
  const nds_training& t = compiled_.model.training;
  const nds_fsdp_holding holding = sdk::fsdp_holding(t.fsdp_holding, s.pp);
  const bool keeps =
      s.zero >= 3 && (holding == NDS_FSDP2_KEEP || holding == NDS_FSDP_KEEP_SHARDED_GRADS);
  // Kept gathered, but each micro-batch's gradients reduce-scattered into
  // sharded accumulators (MindSpore's gradient_accumulation_shard).
  const bool reduces_each = s.zero >= 2 && (!keeps || holding == NDS_FSDP_KEEP_SHARDED_GRADS);
  const double grad_bytes = sdk::dtype_bytes(t.grads_dtype);
  const double param_bytes = sdk::dtype_bytes(t.params_dtype);
  const Collective reduce = s.zero >= 1 ? Collective::reduce_scatter : Collective::all_reduce;
  const double buckets =
      std::max(1.0, (r.dense_params + r.expert_params) /
                        std::max(kBucketParams, kBucketParamsPerReplica * d(s.dp)));
  DataParallel out;
  // Bucketed reduce-scatters start as the last micro-batch's backward frees
  // each bucket's gradients (--overlap-grad-reduce): that backward hides
  // them but for the last bucket.
  // ZeRO-2 and -3 keep only their shard of the gradients, so every
  // micro-batch's backward reduce-scatters its own (DeepSpeed ZeRO-2,
  // FSDP): mbn reductions a step, each behind its own backward.
  const double reduction = dense_and_expert_collective(s, r, reduce, grad_bytes);
  const double reductions = reduces_each ? s.mbn : 1;
  const double reduction_exposed = (compiled_.settings.overlap & NDS_OVERLAP_GRAD_REDUCE) != 0
                                       ? std::max(reduction / buckets, reduction - r.backward)
                                       : reduction;
  out.exposed += reductions * reduction_exposed;
  out.hidden += reductions * (reduction - reduction_exposed);
  if (s.zero >= 1) parameter_gathers(s, r, keeps, buckets, param_bytes, out);
  optimizer_step(s, r, grad_bytes, param_bytes, out);
  return out;
}

TimeModel::LayerReuse::LayerReuse() = default;

TimeModel::LayerCache& TimeModel::LayerReuse::cache_of(uint64_t model_id, const Shape& shape) {
  if (!caches_[0])  // the first estimate (or the first since a move) makes the room, once
    for (auto& cache : caches_) cache = std::make_unique<LayerCache>();
  if (model_id_ != model_id) model_id_ = model_id, used_ = 0, oldest_ = 0;
  for (size_t i = 0; i < used_; ++i)  // 64 comparisons of 7 integers: a layer costs thousands
    if (shapes_[i] == shape) return *caches_[i];
  const size_t i = used_ < kShapes ? used_++ : std::exchange(oldest_, (oldest_ + 1) % kShapes);
  shapes_[i] = shape;
  caches_[i]->known = {};
  return *caches_[i];
}
TimeModel::LayerReuse::~LayerReuse() = default;
TimeModel::LayerReuse::LayerReuse(LayerReuse&&) noexcept = default;
TimeModel::LayerReuse& TimeModel::LayerReuse::operator=(LayerReuse&&) noexcept = default;

double TimeModel::pipeline_s(const nds_strategy& s, const ChunkTimes* times, const Work& slowest,
                             double slot) {
  const double m = s.mbn, p = s.pp, v = s.vpp;
  if (is_dualpipe(s.schedule)) {
    // DeepSeek's table (github.com/deepseek-ai/DualPipe): a bubble of
    // (stages/2 - 1)·(F&B + B - 3W) per stage, F&B the overlapped pair
    // (their compute adds, their communication hides: F + B), B the full
    // backward (with the recompute before it), W its weight-gradient GEMMs.
    // DualPipe has pp stages, each rank two of them, m / 2 micro-batches
    // through each; DualPipe-V 2·pp stages in a V, all m through both
    // chunks. A stage is half the slowest rank's two chunks.
    const bool two_way = s.schedule == NDS_SCHEDULE_DUALPIPE;
    const double stage_bubble =
        std::max(0.0, slot + slowest.backward + slowest.recompute - 3 * slowest.weight_gradients) /
        2;
    return (two_way ? m / 2 : m) * slot + (two_way ? p / 2 - 1 : p - 1) * stage_bubble;
  }
  if (s.schedule == NDS_SCHEDULE_ZB_V) {
    // ZB-V (Qi et al. 2024) fills the bubble but for F + B - 2W per stage, B
    // and W each half the backward. F and B carry the layer's TP, CP and EP
    // communication and B the recompute that precedes it; W (the
    // weight-gradient GEMMs) is the rest of the backward and communicates
    // nothing: T_F + T_B - 2·T_W = forward + recompute + comm + (backward - W) - 2·W.
    return m * slot +
           (p - 1) * std::max(0.0, slowest.forward + slowest.recompute + slowest.tp + slowest.cp +
                                       slowest.ep + slowest.pp + slowest.host + slowest.backward -
                                       3 * slowest.weight_gradients);
  }
  // The first micro-batch crosses every rank, then the slowest rank sets the
  // pace: Σ_r t_r + (m - 1)·max_r t_r for 1F1B and GPipe (a flow shop of
  // identical jobs), each chunk 1/v of that interleaved: Σ_r t_r / v +
  // (m - 1/v)·max_r t_r. Narayanan et al. 2021 §2.2's bubbles where ranks
  // are alike; the schedule's run (pipeline_schedule.hpp) gives the same
  // where the last rank is the slowest (the output head's), and up to a few
  // percent less where another is (docs/pipelines.md).
  double total = 0;
  for (size_t i = 0; i < static_cast<size_t>(s.pp) * s.vpp; ++i)
    total += times[i].forward + times[i].backward;
  const double first = s.schedule == NDS_SCHEDULE_INTERLEAVED ? 1 / v : 1;
  return first * total + (m - first) * slot;
}

// DualPipe and DualPipe-V run the forward chunk of one micro-batch beside
// the backward chunk of another (F&B), so that each one's EP all-to-all and
// pipeline sends overlap the other's compute; the DeepSeek-V3 report
// (§3.2.1) finds both "fully hidden" at its 1:1 compute to communication
// ratio. Priced as hidden up to the compute not already covering other
// communication; the rest stays exposed.
void TimeModel::hide_under_dualpipe(Work& r) {
  const double comm = r.ep + r.pp;
  const double cover = std::max(0.0, r.forward + r.backward + r.recompute -
                                         (r.tp_hidden + r.cp_hidden + r.ep_hidden + r.pp_hidden));
  const double left = std::max(0.0, comm - cover) / comm;
  r.ep_hidden += r.ep * (1 - left), r.pp_hidden += r.pp * (1 - left);
  r.ep *= left, r.pp *= left;
}

// What sets the step's pace: the slowest rank (its work and slot per
// micro-batch) and the rank with the most to reduce or update.
struct TimeModel::Pace {
  Work slowest;
  double slot = 0;
  DataParallel dp;
};

// One pass over the ranks, no allocation; each chunk's seconds per
// micro-batch go to `times`.
TimeModel::Pace TimeModel::rank_pace(const nds_candidate& c, const OffloadCopies* offload,
                                     LayerCache& cache, LayerCache* shapes,
                                     std::vector<ChunkTimes>& times) const {
  const nds_strategy& s = *c.strategy;
  Pace pace;
  const auto vpp = static_cast<size_t>(s.vpp);
  times.resize(static_cast<size_t>(s.pp) * vpp);
  for (int32_t index = 0; index < s.pp; ++index) {
    ChunkTimes* chunks = &times[static_cast<size_t>(index) * vpp];
    // A middle rank whose chunks hold the same layers of the same blocks as
    // the rank before it does the same work: most ranks of an even split.
    const double copy = offload != nullptr ? offload->rank_copy_bytes[index] : 0;
    if (index > 1 && index + 1 < s.pp && same_work_as_previous(c, index) &&
        (offload == nullptr || copy == offload->rank_copy_bytes[index - 1])) {
      std::copy(chunks - vpp, chunks, chunks);
      continue;
    }
    Work r = rank_work(c, index, cache, shapes, chunks);
    if (copy > 0) {
      // The copies' exposed seconds wait before the backwards, spread over the chunks.
      const double exposed = offload_exposed_s(copy, *offload, r.forward, r.backward);
      r.recompute += exposed;
      for (size_t chunk = 0; chunk < vpp; ++chunk)
        chunks[chunk].backward += exposed / d(s.vpp), chunks[chunk].recompute += exposed / d(s.vpp);
    }
    if (is_dualpipe(s.schedule) && r.ep + r.pp > 0) hide_under_dualpipe(r);
    const double slot = r.exposed() + r.host;
    if (index == 0 || slot > pace.slot) pace.slowest = r, pace.slot = slot;
    const DataParallel rank_dp = data_parallel_and_optimizer(s, r);
    if (index == 0 || rank_dp.exposed + rank_dp.optimizer > pace.dp.exposed + pace.dp.optimizer)
      pace.dp = rank_dp;
  }
  return pace;
}

// The step's parts from its pace: the slowest rank's work times the
// micro-batches through it, the pipeline's bubble, DP and the optimizer, and
// the trainer's overheads.
void TimeModel::step_parts(const nds_strategy& s, const Pace& pace, const ChunkTimes* times,
                           TimeEstimate& e) const {
  const Work& slowest = pace.slowest;
  // Micro-batches through each chunk: DualPipe feeds half from each end.
  const double m = s.schedule == NDS_SCHEDULE_DUALPIPE ? s.mbn / 2.0 : s.mbn;
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
  e.hidden.dp = pace.dp.hidden;
  e.weight_gradients_s = m * slowest.weight_gradients;
  // Pipeline bubble: what the pipeline takes beyond the slowest rank's own
  // work, ranks waiting for each other (pipeline_s).
  e.pipeline_s = s.pp > 1 ? pipeline_s(s, times, slowest, pace.slot) : m * pace.slot;
  t.bubble = std::max(0.0, e.pipeline_s - m * pace.slot);
  t.dp = pace.dp.exposed;
  t.optimizer = pace.dp.optimizer;
  e.optimizer_swap_s = pace.dp.swap;
  // Trainer overheads (fitted): per layer and micro-batch, and per step (the
  // kernels' slowdown is in their times already); and the SMs the hidden
  // collectives take from the compute they overlap.
  t.overhead = m * slowest.host + compiled_.step_s + interference_s(s, e.hidden);
  e.step_s = t.step();
}

// The seconds the hidden collectives take from the compute they overlap:
// the SMs their kernels hold, by the level they cross.
double TimeModel::interference_s(const nds_strategy& s, const TimeParts& hidden) const {
  auto sm_share = [&](uint64_t n, uint64_t stride) {
    return n <= 1                                            ? 0.0
           : level_spanned(compiled_.device, n, stride) == 0 ? kNvlinkSmShare
                                                             : kNetworkSmShare;
  };
  const auto tp_n = static_cast<uint64_t>(s.tp), cp_n = static_cast<uint64_t>(s.cp);
  return hidden.tp * sm_share(tp_n, 1) + hidden.cp * sm_share(cp_n, tp_n) +
         hidden.ep * sm_share(static_cast<uint64_t>(s.ep), static_cast<uint64_t>(s.etp)) +
         hidden.dp * sm_share(static_cast<uint64_t>(s.dp) * cp_n, tp_n);
}

// HFU adds what recomputation runs again: full recompute a forward of the
// recomputed layers, selective the forward of its ops (the attention core's
// 4·s·h_attn, the MLP's or MoE layer's 2 per parameter), each layer counted
// with its own option where a strategy chose per layer.
double TimeModel::recomputed_flops_per_token(const nds_candidate& c) const {
  const nds_strategy& s = *c.strategy;
  double extra_per_token = 0;
  auto recomputed = [&](uint32_t first, uint32_t end, int option) {
    if (option != NDS_LAYER_FULL && option != NDS_LAYER_SELECTIVE) return 0.0;
    const size_t k =
        option == NDS_LAYER_FULL ? 0 : 1;  // compiled_.layers.recomputed_flops's column
    return compiled_.layers.recomputed_flops[end][k] - compiled_.layers.recomputed_flops[first][k];
  };
  if (c.layer_option != nullptr) {
    for (uint32_t layer = 0; layer < compiled_.layers.block.size(); ++layer)
      extra_per_token += recomputed(layer, layer + 1, c.layer_option[layer]);
  } else if (s.recompute != NDS_RECOMPUTE_NONE) {
    const int option = s.recompute == NDS_RECOMPUTE_FULL ? NDS_LAYER_FULL : NDS_LAYER_SELECTIVE;
    for (size_t i = 0; i < static_cast<size_t>(s.pp) * s.vpp; ++i) {
      // The first chunk_recomputed_layers of each chunk (reference §5.1).
      const uint32_t first = c.chunk_first_layer[i];
      const uint32_t n = std::min(c.chunk_recomputed_layers[i], c.chunk_layers[i]);
      extra_per_token += recomputed(first, first + n, option);
    }
  }
  return extra_per_token;
}

// The step's FLOPs, MFU, HFU and tokens/s from its seconds.
void TimeModel::utilisation(const nds_candidate& c, uint64_t devices, TimeEstimate& e) const {
  const nds_strategy& s = *c.strategy;
  // DESIGN §8.7: 6 x non-embedding active parameters per token, 6·h·V for the
  // logits, 12·L·s·h_attn for attention scores and values (full s^2).
  const double tokens = d(compiled_.model.training.global_batch != NDS_UNKNOWN
                              ? compiled_.model.training.global_batch
                              : static_cast<int64_t>(s.dp) * s.mbs * s.mbn) *
                        d(compiled_.model.training.seq_len);
  const double vocab =
      d(compiled_.model.main.vocab_size != NDS_UNKNOWN ? compiled_.model.main.vocab_size
                                                       : compiled_.model.main.padded_vocab_size);
  const double h = d(compiled_.layers.block.front()->hidden_size);
  // The towers' forward and backward over each sequence's images (3x the
  // forward's FLOPs: towers.hpp), beside the language model's.
  const double sequences = tokens / d(compiled_.model.training.seq_len);
  e.tower_flops_per_step = sequences * 3 * compiled_.layers.tower_flops_per_sequence;
  e.model_flops_per_step = tokens * (6 * compiled_.layers.active_params +
                                     6 * h * vocab * (1 + compiled_.layers.mtp_heads) +
                                     12 * compiled_.layers.attention_keys) +
                           e.tower_flops_per_step;
  // DualPipe holds every layer on two ranks, each running half the tokens.
  const double extra =
      tokens * recomputed_flops_per_token(c) * (s.schedule == NDS_SCHEDULE_DUALPIPE ? 0.5 : 1.0);
  // Full recompute runs the towers' forward again too.
  const double tower_extra =
      s.recompute == NDS_RECOMPUTE_FULL ? sequences * compiled_.layers.tower_flops_per_sequence : 0;
  e.hardware_flops_per_step = e.model_flops_per_step + extra + tower_extra;
  // The compute dtype's dense peak (fp8's for an fp8 recipe, DESIGN §8.7).
  const double capacity =
      e.step_s * static_cast<double>(devices) * kernels_.linear().peak_flops_per_s;
  e.mfu = capacity > 0 ? e.model_flops_per_step / capacity : 0;
  e.model_flops_causal_per_step =
      e.model_flops_per_step -
      tokens * 12 * (compiled_.layers.attention_keys - compiled_.layers.attention_keys_causal);
  e.mfu_causal = capacity > 0 ? e.model_flops_causal_per_step / capacity : 0;
  e.hfu = capacity > 0 ? e.hardware_flops_per_step / capacity : 0;
  e.tokens_per_s = e.step_s > 0 ? tokens / e.step_s : 0;
}

// The ranks' pace, the step's parts from it, the towers' share, the
// utilisation.
TimeEstimate TimeModel::estimate(const nds_candidate& c, uint64_t devices,
                                 const OffloadCopies* offload, LayerReuse* reuse,
                                 std::vector<ChunkTimes>* chunk_times) const {
  const nds_strategy& s = *c.strategy;
  LayerCache cache;
  LayerCache* shapes =
      reuse == nullptr
          ? nullptr
          : &reuse->cache_of(id_, {s.tp, s.cp, s.ep, s.etp, s.mbs, s.sp, s.mbn > 1 ? 1 : 0});
  // Each chunk's seconds per micro-batch, for the pipeline's pace.
  std::vector<ChunkTimes> local_times;
  std::vector<ChunkTimes>& times = chunk_times != nullptr ? *chunk_times
                                   : reuse != nullptr     ? reuse->chunk_times_
                                                          : local_times;
  const Pace pace = rank_pace(c, offload, cache, shapes, times);
  TimeEstimate e;
  step_parts(s, pace, times.data(), e);
  if (!compiled_.model.submodels.empty()) {
    Work scratch;
    const Work& towers = cached_towers(c, cache, shapes, scratch);
    const double m = s.schedule == NDS_SCHEDULE_DUALPIPE ? s.mbn / 2.0 : s.mbn;
    e.towers_s = m * (towers.exposed() + towers.host);
  }
  utilisation(c, devices, e);
  return e;
}

}  // namespace ndsearch
