// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/recompute_strategy_flags.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>

#include <cmath>

#include "core/support/user_error.hpp"

namespace ndsearch::cli {

void add_recompute_strategy_flags(CLI::App& verb, RecomputeStrategyFlags& flags) {
  verb.add_flag("--auto-recompute,--ar", flags.auto_recompute,
                "Choose each layer's recompute (kept, selective, full) so every stage fits, fastest first");
  verb.add_flag("--offload,--ao", flags.offload,
                "Also offload the first layers' activations of each stage to host memory (implies --auto-recompute)");
  verb.add_option("--recompute-strategy", flags.strategy,
                  "A recompute strategy plugin by name (per-layer, offload, or one's own)");
  verb.add_option("--host-link-gibps", flags.host_link_gibps,
                  "Host link bandwidth per device and direction in GiB/s, instead of the device's");
  verb.add_option("--host-link-overlap", flags.host_link_overlap,
                  "Share of a micro-batch's forward and backward that hides the offload copies (default 1)");
  verb.add_option("--host-memory", flags.host_memory,
                  "Host memory per device for offloaded activations (default 128GB = 128 GiB)");
}

RecomputeSettings recompute_settings(const RecomputeStrategyFlags& flags) {
  RecomputeSettings s;
  s.offload = flags.offload;
  s.strategy = !flags.strategy.empty() ? flags.strategy
               : flags.offload       ? "offload"
               : flags.auto_recompute ? "per-layer"
                                      : "";
  const bool link_flags = flags.host_link_gibps || flags.host_link_overlap || flags.host_memory;
  if (link_flags && !s.offload)
    throw UserError("E-USAGE",
                    "--host-link-gibps, --host-link-overlap and --host-memory price offload; add --offload");
  if (flags.host_link_gibps) {
    if (!(*flags.host_link_gibps > 0) || !std::isfinite(*flags.host_link_gibps))
      throw UserError("E-USAGE", fmt::format("--host-link-gibps {}: give a bandwidth > 0 in GiB/s",
                                             *flags.host_link_gibps));
    s.host_link_bytes_per_s = *flags.host_link_gibps * sdk::kBytesPerGiB;
  }
  if (flags.host_link_overlap) {
    if (!(*flags.host_link_overlap >= 0 && *flags.host_link_overlap <= 1))
      throw UserError("E-USAGE", fmt::format("--host-link-overlap {}: give a share from 0 (copies never "
                                             "overlap compute) to 1 (they always may)",
                                             *flags.host_link_overlap));
    s.host_link_overlap = *flags.host_link_overlap;
  }
  if (flags.host_memory) {
    const auto bytes = sdk::memory_size_bytes(*flags.host_memory);
    if (!bytes || *bytes <= 0)
      throw UserError("E-USAGE", fmt::format("--host-memory {}: not a size; write it as 256GB (= 256 GiB), "
                                             "512MB, 1TB",
                                             *flags.host_memory));
    s.host_memory_bytes = static_cast<double>(*bytes);
  }
  return s;
}

}  // namespace ndsearch::cli
