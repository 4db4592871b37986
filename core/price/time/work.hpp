// SPDX-License-Identifier: Apache-2.0
// work.hpp (private to core/time): what the time model adds up per layer and
// per pipeline rank for one micro-batch, shared by layer_work.cpp (one
// layer) and time_model.cpp (a rank, the step).
#pragma once

#include <array>
#include <cstdint>

#include "core/price/time/time_model.hpp"

namespace ndsearch::timing {
inline double d(int64_t v) {
  return static_cast<double>(v);
}
}  // namespace ndsearch::timing

namespace ndsearch {

// One layer's (or one rank's) work for one micro-batch.
struct TimeModel::Work {
  double forward = 0, backward = 0, recompute = 0;  // compute seconds
  double forward_linear = 0, backward_linear = 0;   // GEMMs TP comm overlaps with
  double backward_column = 0;  // of the backward's, the column-parallel linears' (TP's async part)
  double forward_experts = 0,
         backward_experts = 0;  // routed experts (what EP comm cannot hide behind)
  double forward_attention = 0, backward_attention = 0;  // the attention core
  double forward_shared = 0, backward_shared = 0;        // the shared experts' GEMMs
  double weight_gradients = 0;            // of the backward, the weight-gradient GEMMs (ZB-V's W)
  double tp = 0, cp = 0, ep = 0, pp = 0;  // exposed communication
  double tp_hidden = 0, cp_hidden = 0, ep_hidden = 0, pp_hidden = 0;
  double layers = 0;
  // Host seconds the GPU waits for (TrainerOverheads): per layer, and per
  // MoE layer whose shapes depend on its routing.
  double host = 0;
  double dense_params = 0, expert_params = 0;  // held by this rank (its shard of TP/EP)
  double fp8_params = 0;                       // of them, weights of fp8 GEMMs
  double exposed() const { return forward + backward + recompute + tp + cp + ep + pp; }
  void add(const Work& o, double n) {
    forward += n * o.forward, backward += n * o.backward, recompute += n * o.recompute;
    forward_linear += n * o.forward_linear, backward_linear += n * o.backward_linear;
    backward_column += n * o.backward_column;
    forward_experts += n * o.forward_experts, backward_experts += n * o.backward_experts;
    forward_attention += n * o.forward_attention, backward_attention += n * o.backward_attention;
    forward_shared += n * o.forward_shared, backward_shared += n * o.backward_shared;
    weight_gradients += n * o.weight_gradients;
    tp += n * o.tp, cp += n * o.cp, ep += n * o.ep, pp += n * o.pp;
    tp_hidden += n * o.tp_hidden, cp_hidden += n * o.cp_hidden, ep_hidden += n * o.ep_hidden;
    pp_hidden += n * o.pp_hidden;
    layers += n * o.layers;
    host += n * o.host;
    dense_params += n * o.dense_params, expert_params += n * o.expert_params,
        fp8_params += n * o.fp8_params;
  }
};

// A layer's work depends on its block, its recompute option (kept,
// selective or full; offload computes as kept) and the strategy, not on its
// rank: one estimate prices each pair once (models with more blocks than
// this price the rest every time).
struct TimeModel::LayerCache {
  static constexpr uint32_t kBlocks = 8;  // a few blocks is what models have
  static constexpr uint32_t kOptions = 3;
  // Written when first known, not zeroed per estimate: the search prices
  // millions of candidates, each filling two or three of these slots.
  union Slot {
    Work work;
    Slot() {}
  };
  // Then one slot per option for the towers' work (tower_work.cpp).
  static constexpr size_t kTowerSlot = kOptions * kBlocks;
  std::array<Slot, kOptions*(kBlocks + 1)> work;
  std::array<bool, kOptions*(kBlocks + 1)> known{};
};

}  // namespace ndsearch
