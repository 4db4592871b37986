// SPDX-License-Identifier: Apache-2.0
// time_model.hpp: seconds per training step for one candidate, from the
// device's figures (peak FLOP/s per dtype and GEMM efficiency, HBM and link
// bandwidths per topology level): compute, communication, pipeline bubble,
// optimizer step, each exposed part reported so that they sum to the step
// time; MFU and HFU as DESIGN §8.7 defines them.
#pragma once

#include <ndsearch/nds_candidate.h>

#include <array>
#include <utility>
#include <vector>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"
#include "core/time/cp_model.hpp"

namespace ndsearch {

// Exposed seconds of one step by part; they sum to the step time.
struct TimeParts {
  double forward = 0, backward = 0, recompute = 0, optimizer = 0;
  double tp = 0, cp = 0, ep = 0, dp = 0, pp = 0, bubble = 0;
  double step() const {
    return forward + backward + recompute + optimizer + tp + cp + ep + dp + pp + bubble;
  }
};

// The parts with their names, in the order every output lists them.
inline constexpr std::array<std::pair<const char*, double TimeParts::*>, 10> kTimeParts{{
    {"forward", &TimeParts::forward},
    {"backward", &TimeParts::backward},
    {"recompute", &TimeParts::recompute},
    {"optimizer", &TimeParts::optimizer},
    {"tp", &TimeParts::tp},
    {"cp", &TimeParts::cp},
    {"ep", &TimeParts::ep},
    {"dp", &TimeParts::dp},
    {"pp", &TimeParts::pp},
    {"bubble", &TimeParts::bubble}}};

struct TimeEstimate {
  TimeParts parts;
  double step_s = 0;
  double model_flops_per_step = 0;     // DESIGN §8.7
  double hardware_flops_per_step = 0;  // + the recomputed forward passes
  double mfu = 0, hfu = 0;
  double tokens_per_s = 0;
};

class TimeModel {
 public:
  // `cp`: the context-parallel attention model (may be null when cp is 1).
  TimeModel(const Model& model, const Device& device, CpModel* cp);

  // `devices` and the candidate's strategy must pass the checks.
  TimeEstimate estimate(const nds_candidate& candidate, uint64_t devices) const;

 private:
  struct Rank;  // one pipeline rank's per-micro-batch work
  struct LayerCache;  // one estimate's layer_work per (block, recomputed)
  Rank rank_work(const nds_candidate& c, int32_t rank, LayerCache& cache) const;
  // One layer of `block` (model block index `block`) for one micro-batch.
  Rank layer_work(const nds_candidate& c, const nds_layer_block& l, uint32_t block,
                  bool is_recomputed) const;
  // Seconds of one step's DP reduction (and ZeRO gathers) and optimizer step
  // for a rank holding `r`'s parameters.
  std::pair<double, double> data_parallel_and_optimizer(const nds_strategy& s, const Rank& r) const;
  double gemm_seconds(double flops) const;
  // A GEMM C[m,n] = A[m,k]·B[k,n], `count` times (a batched GEMM): the
  // slower of its compute (2mnk at the efficiency for its size) and its
  // memory traffic (reading A and B, writing C) at HBM bandwidth: a roofline.
  double gemm_seconds(double m, double n, double k, double count) const;
  double memory_seconds(double bytes) const;

  const Model& model_;
  const Device& device_;
  CpModel* cp_;
  std::vector<const nds_layer_block*> layer_block_;  // decoder layer -> its block
  std::vector<uint32_t> block_index_;                // decoder layer -> index in model.main.blocks
  std::vector<uint32_t> run_end_;  // decoder layer -> one past its block's last layer
  double peak_flops_per_s_ = 0;
  double active_params_ = 0, attention_width_ = 0;  // summed over the decoder and MTP layers
  std::vector<uint32_t> mtp_blocks_;                 // model.main.blocks indices of MTP blocks
  double mtp_heads_ = 0;                             // MTP layers: each passes the output head again
  const Curve* efficiency_ = nullptr;
  double act_bytes_ = 2;  // bytes of the compute dtype
};

}  // namespace ndsearch
