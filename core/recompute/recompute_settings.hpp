// SPDX-License-Identifier: Apache-2.0
// recompute_settings.hpp: which recompute strategy prices a run's candidates
// per layer, and the host-side figures offload needs.
#pragma once

#include <ndsearch/core/planner.hpp>

#include <optional>
#include <string>

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

  bool per_layer() const { return !strategy.empty(); }
};

// The settings a host's choice gives. UserError E-USAGE for a link bandwidth
// that is not > 0, an overlap outside [0, 1], a host memory that is not a
// size, or the offload figures without offload.
RecomputeSettings recompute_settings_of(const RecomputeChoiceSettings& choice);

}  // namespace ndsearch
