// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/recompute_strategy_flags.hpp"

namespace ndsearch::cli {

void add_recompute_strategy_flags(CLI::App& verb, RecomputeChoiceSettings& flags) {
  verb.add_flag(
      "--auto-recompute,--ar", flags.auto_recompute,
      "Choose each layer's recompute (kept, selective, full) so every stage fits, fastest first");
  verb.add_flag("--offload,--ao", flags.offload,
                "Also offload the first layers' activations of each stage to host memory (implies "
                "--auto-recompute)");
  verb.add_option(
      "--recompute-strategy", flags.recompute_strategy,
      "A recompute strategy plugin by name (per-layer, offload, or one's own). Without one, "
      "each candidate's recompute key applies to its layers: the config's per-stage counts "
      "rescaled to its pp where the config states them (the reference's -mppb), else every "
      "layer; the reference's own default recomputes every layer (--recompute full)");
  verb.add_option(
      "--host-link-gibps", flags.host_link_gibps,
      "Host link bandwidth per device and direction in GiB/s, instead of 80 % of the device's");
  verb.add_option(
      "--host-link-overlap", flags.host_link_overlap,
      "Share of a micro-batch's forward and backward that hides the offload copies (default 1)");
  verb.add_option("--host-memory", flags.host_memory,
                  "Host memory per device for offloaded activations (default 128GB = 128 GiB)");
}

}  // namespace ndsearch::cli
