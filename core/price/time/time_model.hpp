// SPDX-License-Identifier: Apache-2.0
// time_model.hpp: seconds per training step for one candidate, from the
// device's figures (GEMM efficiency by size and shape, attention kernels by
// block length, achieved HBM bandwidth, link bandwidths per topology level)
// and the trainer's settings (overlaps, precision recipe, fitted overheads):
// compute, communication exposed after what hides it, pipeline bubble,
// optimizer step, each exposed part reported so that they sum to the step
// time, with the hidden communication beside them; MFU and HFU as DESIGN
// §8.7 defines them.
#pragma once

#include <ndsearch/nds_candidate.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/compile/compiled_model.hpp"
#include "core/compile/cp_model.hpp"
#include "core/compile/optimizer_swap.hpp"
#include "core/compile/trainer_settings.hpp"
#include "core/hardware/device.hpp"
#include "core/price/time/collectives.hpp"
#include "core/price/time/kernels.hpp"
#include "core/price/time/pipeline_schedule.hpp"

namespace ndsearch {

// Exposed seconds of one step by part; they sum to the step time.
struct TimeParts {
  double forward = 0, backward = 0, recompute = 0, optimizer = 0;
  double tp = 0, cp = 0, ep = 0, dp = 0, pp = 0, bubble = 0, overhead = 0;
  double step() const {
    return forward + backward + recompute + optimizer + tp + cp + ep + dp + pp + bubble + overhead;
  }
};

// The parts with their names, in the order every output lists them.
inline constexpr std::array<std::pair<const char*, double TimeParts::*>, 11> kTimeParts{
    {{"forward", &TimeParts::forward},
     {"backward", &TimeParts::backward},
     {"recompute", &TimeParts::recompute},
     {"optimizer", &TimeParts::optimizer},
     {"tp", &TimeParts::tp},
     {"cp", &TimeParts::cp},
     {"ep", &TimeParts::ep},
     {"dp", &TimeParts::dp},
     {"pp", &TimeParts::pp},
     {"bubble", &TimeParts::bubble},
     {"overhead", &TimeParts::overhead}}};

// The communication parts that overlap can hide, by name.
inline constexpr std::array<std::pair<const char*, double TimeParts::*>, 5> kHiddenParts{
    {{"tp", &TimeParts::tp},
     {"cp", &TimeParts::cp},
     {"ep", &TimeParts::ep},
     {"dp", &TimeParts::dp},
     {"pp", &TimeParts::pp}}};

struct TimeEstimate {
  TimeParts parts;   // exposed; sums to step_s
  TimeParts hidden;  // communication seconds hidden behind compute (tp, cp, ep, dp, pp)
  double step_s = 0;
  double model_flops_per_step = 0;     // DESIGN §8.7
  double hardware_flops_per_step = 0;  // + the recomputed forward passes
  double mfu = 0, hfu = 0;
  // The same with causal attention counted as the kernels run it (half of
  // 12·L·s·h_attn per token), the convention of sources that halve it.
  double model_flops_causal_per_step = 0, mfu_causal = 0;
  double tokens_per_s = 0;
  double pipeline_s = 0;          // from the first forward to the last backward
  double weight_gradients_s = 0;  // of `parts.backward`, the weight-gradient GEMMs (ZB-V's W)
  // Of `parts.optimizer`, what the copies of swapped optimizer states add to
  // the update itself (0 when the states stay on the device).
  double optimizer_swap_s = 0;
  // The vision towers' part of the step: their exposed seconds on the rank
  // holding them (compute, TP communication and per-layer overhead, every
  // micro-batch), and their share of the model FLOPs (0 without towers).
  double towers_s = 0;
  double tower_flops_per_step = 0;
};

// What offloaded activations copy (an offload recompute strategy's choice):
// per pipeline rank, the bytes one micro-batch copies to host after its
// forward and back before its backward, over the device's host link.
struct OffloadCopies {
  const double* rank_copy_bytes = nullptr;  // pp entries
  double link_bytes_per_s = 0;              // per direction, this device's share of the link
  double overlap = 1;  // the share of a micro-batch's forward (backward) the copies may hide behind
};

// The seconds of one micro-batch's copies that its compute does not hide:
// to host behind the forward, back behind the backward (the offload
// strategy's rule, nds_recompute.h).
double offload_exposed_s(double copy_bytes, const OffloadCopies& link, double forward_s,
                         double backward_s);

class TimeModel {
 public:
  // `compiled`: the model, device and trainer settings it prices on, which
  // must outlive it. `cp`: the context-parallel attention model (may be null
  // when cp is 1).
  explicit TimeModel(const CompiledModel& compiled, const CpModel* cp = nullptr);

  // Layer prices kept from one estimate to the next by one thread (below).
  class LayerReuse;

  // `devices` and the candidate's strategy must pass the checks. `offload`:
  // the copies of offloaded layers, when a strategy offloads; their exposed
  // seconds count as recompute (time paid for memory). `reuse`: the layer
  // prices of this model's previous estimate on this thread, reused when the
  // candidate's layers are shaped alike (null: none kept).
  // `chunk_times`: where given, filled with each chunk's seconds per
  // micro-batch as this estimate prices them, [rank·vpp + chunk] (what the
  // schedule's run of explain's timeline takes).
  TimeEstimate estimate(const nds_candidate& candidate, uint64_t devices,
                        const OffloadCopies* offload = nullptr, LayerReuse* reuse = nullptr,
                        std::vector<ChunkTimes>* chunk_times = nullptr) const;

  // For a recompute strategy's menu, per micro-batch: the compute seconds of
  // one rank's forward and backward, and the seconds one layer of model block
  // `block` adds under `option` (its recomputed forward, with the
  // communication a second forward repeats).
  struct RankCompute {
    double forward_s = 0, backward_s = 0;
  };
  RankCompute rank_compute(const nds_candidate& candidate, int32_t rank) const;
  double layer_extra_s(const nds_candidate& candidate, uint32_t block,
                       nds_layer_option option) const;

  // Every assumption that moves the estimates, in words (the same for every candidate).
  const std::vector<std::string>& assumptions() const { return assumptions_; }
  const TrainerSettings& settings() const { return compiled_.settings; }

 private:
  struct Work;        // one layer's (or one rank's) work for one micro-batch
  struct LayerCache;  // one estimate's layer_work per (block, recompute option)
  // `cache`: this estimate's layers; `shapes`: the layers of candidates shaped
  // alike without their CP exchanges (LayerReuse; null: none kept).
  // `chunks`: where given, this rank's vpp chunks' seconds per micro-batch
  // for the schedule's run (their forward and backward add up to the rank's).
  Work rank_work(const nds_candidate& c, int32_t rank, LayerCache& cache,
                 LayerCache* shapes = nullptr, ChunkTimes* chunks = nullptr) const;
  // Its steps: a chunk's layers, the output head and MTP modules (`vocab`
  // rows over `tp`), a chunk's seconds from what `r` gained since `before`,
  // the embedding's and head's parameters, and the pipeline's sends.
  void add_chunk_layers(const nds_candidate& c, size_t i, LayerCache& cache, LayerCache* shapes,
                        Work& r) const;
  void add_head_and_mtp(const nds_candidate& c, double tokens, double vocab, double tp,
                        LayerCache& cache, LayerCache* shapes, Work& r) const;
  static ChunkTimes chunk_seconds(const Work& r, const Work& before);
  void add_edge_params(double vocab, double tp, bool holds_embedding, bool holds_head,
                       Work& r) const;
  void add_pipeline_sends(const nds_strategy& s, double tokens, Work& r, ChunkTimes* chunks) const;
  // The seconds from the first forward to the last backward of a step on
  // the pipeline, from the chunks' `times` and the slowest rank (`slowest`,
  // its `slot`): closed forms, O(pp·vpp) (the search prices millions).
  static double pipeline_s(const nds_strategy& s, const ChunkTimes* times, const Work& slowest,
                           double slot);
  // estimate's named steps: the ranks' pace (the slowest rank, the rank that
  // sets DP and the optimizer; each chunk's seconds into `times`), the
  // step's parts from it, the hidden collectives' interference, and the
  // FLOPs and utilisation.
  struct Pace;
  static void hide_under_dualpipe(Work& r);  // DualPipe's F&B overlap
  Pace rank_pace(const nds_candidate& c, const OffloadCopies* offload, LayerCache& cache,
                 LayerCache* shapes, std::vector<ChunkTimes>& times) const;
  void step_parts(const nds_strategy& s, const Pace& pace, const ChunkTimes* times,
                  TimeEstimate& e) const;
  double interference_s(const nds_strategy& s, const TimeParts& hidden) const;
  double recomputed_flops_per_token(const nds_candidate& c) const;
  void utilisation(const nds_candidate& c, uint64_t devices, TimeEstimate& e) const;
  // One layer of model block `block` under `option` for this estimate, from
  // `cache`, else from `shapes` with the CP exchanges added, else priced;
  // `scratch` holds it for a block past the caches' room.
  const Work& cached_layer(const nds_candidate& c, uint32_t block, nds_layer_option option,
                           LayerCache& cache, LayerCache* shapes, Work& scratch) const;
  // Tokens of one micro-batch on one device (its share of the sequence under CP).
  double micro_batch_tokens(const nds_strategy& s) const {
    return s.mbs * static_cast<double>(compiled_.model.training.seq_len) / s.cp;
  }
  // What one layer works on for one micro-batch on this device: its tokens,
  // the keys each query meets, and whether it is a tower's layer (every
  // patch of the micro-batch's images, bidirectional within a window or
  // image, whole on each CP rank) or the language model's (its CP share of
  // the sequence, causal).
  struct Span {
    double tokens = 0, keys = 0;
    bool tower = false;
  };
  Span decoder_span(const nds_strategy& s) const {
    return {micro_batch_tokens(s), static_cast<double>(compiled_.model.training.seq_len), false};
  }
  // The towers' work for one micro-batch on the rank holding the embedding
  // (tower_work.cpp): their layers under the strategy's recompute mode, the
  // patch embeddings, the mergers; from `cache`, else `shapes`, else priced.
  Work tower_work(const nds_candidate& c) const;
  const Work& cached_towers(const nds_candidate& c, LayerCache& cache, LayerCache* shapes,
                            Work& scratch) const;
  // Whether middle rank `rank` holds the same layers of the same blocks as rank - 1.
  bool same_work_as_previous(const nds_candidate& c, int32_t rank) const;
  // One layer of `block` (model block index `block`) for one micro-batch,
  // run with `option` (an offloaded layer computes as a kept one: its copies
  // are priced per rank, offload_exposed).
  Work layer_work(const nds_candidate& c, const nds_layer_block& l, uint32_t block,
                  nds_layer_option option) const;
  // The same without the CP exchanges: what depends on the layer's shape
  // alone (LayerReuse). An MTP block's adds its [h; h] -> h projection.
  Work shaped_layer_work(const nds_candidate& c, const nds_layer_block& l, nds_layer_option option,
                         const Span& span) const;
  // Its parts (layer_work.cpp): the attention's GEMMs and kernels (returns
  // the elements RoPE rotates per token), the MLP's or experts' (returns the
  // MoE permutation's elements per token), the memory-bound kernels, and
  // the TP, EP and CP communication, `passes_forward` forwards each.
  // `rebuilt` gathers the forward seconds that selective recompute's ops
  // (nds_training.recompute_ops) may run again.
  struct Rebuilt {
    double dense_mlp = 0;  // its GEMMs and activation
    double moe = 0;        // router, experts, shared experts, their activations, the permutation
    double expert_activation = 0;  // the routed experts' activation (Megatron's moe_act)
    // The dense MLP's and the shared experts' activation alone (ABI 1.12,
    // NDS_RECOMPUTE_OP_MLP_ACTIVATION).
    double dense_activation = 0, shared_activation = 0;
    double norms = 0;
    // The whole memory-bound forward, and the matmuls PyTorch's per-op
    // policy runs again (NDS_RECOMPUTE_OP_ALTERNATE_MATMULS).
    double memory_bound = 0, alternate_matmuls = 0;
  };
  // Forward passes of a layer's CP exchanges under `option`.
  double cp_passes(nds_layer_option option) const;
  double attention_compute(Work& w, const nds_candidate& c, const nds_layer_block& l,
                           const Span& span) const;
  // Its attention core (`qk_dim` and `v_dim` per head) as the kernels that run it price it.
  void attention_core(Work& w, const nds_strategy& s, const nds_layer_block& l, const Span& span,
                      double qk_dim, double v_dim) const;
  double mlp_compute(Work& w, const nds_candidate& c, const nds_layer_block& l, Rebuilt& rebuilt,
                     const Span& span) const;
  void memory_bound(Work& w, const nds_candidate& c, const nds_layer_block& l, double qk_rotated,
                    double routed_elements, Rebuilt& rebuilt, const Span& span) const;
  // Whether selective recompute runs op `op` (NDS_RECOMPUTE_OP_*) again.
  bool selective_recomputes(uint64_t op) const {
    return (compiled_.layers.selective_ops & op) != 0;
  }
  // The matmuls torchtitan's per-op policy runs again in a layer of `w`
  // (per_op_checkpoint.cpp).
  double alternate_matmuls_s(const nds_candidate& c, const nds_layer_block& l, const Work& w,
                             const Span& span) const;
  // The forward seconds selective recompute adds to a layer of `w`.
  double selective_s(const Work& w, const Rebuilt& rebuilt) const;
  // `attention_passes` and `mlp_passes`: forwards of the collectives around
  // attention and around the dense MLP or shared experts.
  void tp_comm(Work& w, const nds_candidate& c, const nds_layer_block& l, double attention_passes,
               double mlp_passes, const Span& span) const;
  void ep_comm(Work& w, const nds_candidate& c, const nds_layer_block& l, double passes_forward,
               const Span& span) const;
  void cp_comm(Work& w, const nds_candidate& c, uint32_t block, double passes_forward) const;
  // A linear layer of `tokens` x `in` -> `out` on this device: forward GEMM,
  // the input- and weight-gradient GEMMs, and the fp8 casts of its inputs.
  // `count` such layers (experts), each GEMM at its own shape's efficiency.
  // A column-parallel one (its output split over TP) is what the backward's
  // async TP exchange runs under.
  enum class Split { none, column };
  void linear(Work& w, double tokens, double in, double out, double count = 1,
              Split split = Split::none) const;
  // Exposed and hidden seconds of one step's DP reduction and parameter
  // gathers, and the optimizer step, for a rank doing `r`.
  struct DataParallel {
    double exposed = 0, hidden = 0, optimizer = 0;
    double swap = 0;  // of `optimizer`, what the swapped states' copies add
  };
  DataParallel data_parallel_and_optimizer(const nds_strategy& s, const Work& r) const;
  // Its steps: one collective over the dense and the expert DP groups, ZeRO's
  // parameter gathers (`keeps`: FSDP keeps what it gathered), and the
  // optimizer step.
  double dense_and_expert_collective(const nds_strategy& s, const Work& r, Collective kind,
                                     double bytes_per_param) const;
  void parameter_gathers(const nds_strategy& s, const Work& r, bool keeps, double buckets,
                         double param_bytes, DataParallel& out) const;
  void optimizer_step(const nds_strategy& s, const Work& r, double grad_bytes, double param_bytes,
                      DataParallel& out) const;
  // One collective of communication part `part`, on the calibrated device,
  // times the calibration's multiplier for that part.
  // Inline: the search asks it for every collective of every layer.
  double comm(CommPart part, Collective kind, uint64_t n, uint64_t stride, double bytes) const {
    return compiled_.calibration.comm(part) *
           collective_seconds(compiled_.device, kind, n, stride, bytes);
  }

  const CompiledModel& compiled_;
  // This time model's own number, from 1, that a LayerReuse tells them apart
  // by (an address may be reused by a later one).
  uint64_t id_;
  const CpModel* cp_;
  Kernels kernels_;
  double cast_bytes_ = 0;  // per element of an fp8 GEMM's input: the cast's traffic
  std::vector<std::string> assumptions_;
};

// A layer's price but for its CP exchanges depends on its block, its option
// and, of the strategy, only on tp, cp, ep, etp, mbs, sp and whether mbn > 1
// (the MoE all-to-all's overlap needs another micro-batch): candidates that
// differ in dp, pp, vpp, zero, op, mbn or recompute share it. The CP
// exchanges come from a plugin, which may read any field of the candidate:
// they are asked for each estimate.
// Few candidates of one shape fit, and those that do are far apart in the
// search's order, so the prices of the last 64 shapes are kept (about 300 KB,
// allocated at the first estimate), the oldest replaced first. One per thread and TimeModel:
// the search keeps one per worker.
class TimeModel::LayerReuse {
 public:
  LayerReuse();
  ~LayerReuse();
  LayerReuse(LayerReuse&&) noexcept;
  LayerReuse& operator=(LayerReuse&&) noexcept;

 private:
  friend class TimeModel;
  using Shape = std::array<int32_t, 7>;  // tp, cp, ep, etp, mbs, sp, mbn > 1
  static constexpr size_t kShapes = 64;
  // The cache of `shape`, emptied first when it was another's.
  LayerCache& cache_of(uint64_t model_id, const Shape& shape);
  std::array<std::unique_ptr<LayerCache>, kShapes> caches_;
  std::array<Shape, kShapes> shapes_{};
  // The chunks' times of the last estimate, kept for their room.
  std::vector<ChunkTimes> chunk_times_;
  uint64_t model_id_ = 0;  // whose prices these are (TimeModel::id_; 0: none yet)
  size_t used_ = 0, oldest_ = 0;
};

}  // namespace ndsearch
