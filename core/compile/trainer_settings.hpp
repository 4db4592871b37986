// SPDX-License-Identifier: Apache-2.0
// trainer_settings.hpp: what the time model assumes of the trainer that runs
// a candidate: which communications it overlaps (as the config states them,
// else a well-tuned Megatron-Core run, said so), the precision recipe, and
// the overheads a trainer adds on top of its kernels (a few global factors per
// device and trainer, fitted on published runs: validation/, docs/validation.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ndsearch/sdk/model_math.hpp>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"

namespace ndsearch {

// The overheads a trainer adds that no micro-benchmark gives: kernel launch
// gaps and host work per layer and micro-batch; a fixed cost per step (data
// loading, logging, the optimizer's many small kernels); and how much longer
// the kernels take in a training step than in the micro-benchmarks the
// device's figures come from (sustained clocks under the power limit, SMs
// and HBM the overlapped collectives take, the framework's kernels against
// the benchmark's best).
struct TrainerOverheads {
  double layer_s = 0;          // per layer, per micro-batch, forward + backward
  double step_s = 0;           // per step
  double kernel_slowdown = 0;  // every kernel takes (1 + this) x its micro-benchmark time
  // Per routed expert a device holds, per MoE layer whose shapes depend on
  // its routing (dropless, or dropping without padding to capacity), per
  // micro-batch, forward + backward: the host work Transformer Engine's
  // grouped linear and the dispatcher do per expert (splitting the input by
  // each expert's token count, which the host waits for every layer:
  // Megatron-Core's token_dispatcher.py, d2h_event.synchronize; quantizing
  // and launching each expert's GEMMs), which the GPU waits for.
  double moe_expert_s = 0;
};

// A fitted set and where it applies.
struct FittedOverheads {
  const char* device;   // device id
  const char* trainer;  // "megatron" (Megatron-LM / Megatron-Core / NeMo)
  TrainerOverheads factors;
  const char* fitted_on;  // the validation sources
};

// The shipped fits (core/compile/fitted_overheads.inc, written by the fitter).
const std::vector<FittedOverheads>& fitted_overheads();

// The device whose fit stands in where a device has none of its own (and
// whose dense factors a device with only MoE rows keeps: fit.hpp's plan).
inline constexpr const char* kReferenceOverheadsDevice = "nvidia-h100-sxm";

struct TrainerSettings {
  uint64_t overlap = 0;                  // NDS_OVERLAP_* in force
  bool overlap_assumed = false;          // nothing stated: a well-tuned Megatron-Core run
  bool tp_overlap_fused = false;         // TP overlap by MindSpeed's MC2 (fused into the GEMMs)
  int32_t fp8_recipe = 0;                // NDS_FP8_*
  std::string linear_dtype, high_dtype;  // dtype keys of the linear GEMMs and of the rest
  double activation_bytes = 2;
  sdk::LossTraffic loss;  // bytes the loss moves a logit (sdk::loss_traffic)
  TrainerOverheads overheads;
  std::string overheads_source;          // which fit, or why none
  std::vector<std::string> assumptions;  // every assumption that moves the estimate, in words
};

// `overheads`: use these instead of the shipped fit (the fitter's trial values).
// The NDS_OVERLAP_* switches a strategy of `model` is priced with: the
// config's where it states any, else what a well-tuned Megatron-Core run
// overlaps (every one). The one rule behind the assumptions line and what
// apply hands the writers (nds_applied_strategy.overlap).
uint64_t overlap_in_force(const Model& model);

TrainerSettings trainer_settings(const Model& model, const Device& device,
                                 const std::optional<TrainerOverheads>& overheads = std::nullopt);

}  // namespace ndsearch
