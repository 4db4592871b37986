// SPDX-License-Identifier: Apache-2.0
// recompute_settings.hpp: which recompute strategy prices a run's candidates
// per layer, and the host-side figures offload and optimizer swapping need.
#pragma once

#include <ndsearch/nds_model.h>
#include <ndsearch/core/planner.hpp>

#include <optional>
#include <string>

#include "core/compile/optimizer_swap.hpp"
#include "core/hardware/device.hpp"

namespace ndsearch {

struct RecomputeSettings {
  // Empty: the uniform mode of each candidate's `recompute` key (and the
  // config's per-stage counts), as without a strategy. Else a loaded
  // "nds.recompute/1" strategy's name: "per-layer", "offload".
  std::string strategy;
  // Whether the strategy may offload activations to host memory (its menu
  // then prices the copies).
  bool offload = false;
  // Instead of the device's host link (bytes/s per direction per device).
  std::optional<double> host_link_bytes_per_s;
  // The share of a micro-batch's forward (backward) compute that the copies
  // to host (and back) may hide behind: copy engines run beside the kernels
  // (Megatron-Core's and MindSpeed's activation offload both prefetch layer
  // by layer), so all of it unless a user knows their trainer waits.
  double host_link_overlap = 1;
  // Host memory one device may fill with offloaded activations. DGX H100
  // has 2 TB of system memory for 8 GPUs (NVIDIA DGX H100 datasheet): 256
  // GB each, of which half is left to the OS, data loading and pinned
  // buffers here.
  double host_memory_bytes = 128.0 * (1ull << 30);
  // Optimizer states and master weights kept in host memory between steps
  // (the plugin option "swap-optimizer", MindSpeed's --swap-optimizer): the
  // memory pass drops them, the time model prices their copies.
  bool swap_optimizer = false;

  bool per_layer() const { return !strategy.empty(); }
};

// The settings a host's choice gives; `swap_optimizer`: the run's plugin
// option "swap-optimizer" is "1". UserError E-USAGE for a link bandwidth that
// is not > 0, an overlap outside [0, 1], a host memory that is not a size,
// the activation-offload figures without offload, or a link bandwidth with
// neither offload nor optimizer swapping.
RecomputeSettings recompute_settings_of(const RecomputeChoiceSettings& choice,
                                        bool swap_optimizer = false);

// The host link one device copies over, bytes/s per direction: the given
// figure, else 80 % of the device's (what pinned copies reach).
double host_link_bytes_per_s(const RecomputeSettings& settings, const Device& device);

// What the time model prices of swapped optimizer states: nothing unless
// `settings.swap_optimizer` or the config's trainer swaps them
// (`training.swap_optimizer`, ABI 1.9). UserError E-USAGE when they are
// swapped over a device that states no host link and none is given.
OptimizerSwap optimizer_swap_of(const RecomputeSettings& settings, const Device& device,
                                const nds_training& training);

}  // namespace ndsearch
