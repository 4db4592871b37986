// SPDX-License-Identifier: Apache-2.0
#include "core/price/recompute/recompute_settings.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/units.hpp>

#include <cmath>

#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// Host-device copies reach about 80 % of a PCIe link's rate: H100 51 GB/s
// host to device and 52 back, H200 52 / 52, of PCIe 5 x16's 64 GB/s per
// direction (reference/microbenchmarks.md §4, pinned-memory bandwidth tests).
constexpr double kHostLinkEfficiency = 0.8;

}  // namespace

double host_link_bytes_per_s(const RecomputeSettings& settings, const Device& device) {
  return settings.host_link_bytes_per_s.value_or(kHostLinkEfficiency *
                                                 device.host_link_bytes_per_s);
}

OptimizerSwap optimizer_swap_of(const RecomputeSettings& settings, const Device& device,
                                const nds_training& training) {
  OptimizerSwap swap;
  if (!settings.swap_optimizer && training.swap_optimizer != 1) return swap;
  swap.link_bytes_per_s = host_link_bytes_per_s(settings, device);
  if (!(swap.link_bytes_per_s > 0))
    throw UserError(
        "E-USAGE",
        fmt::format("{} copies the optimizer states over the host link, and device "
                    "{} states none; give its bandwidth with {}",
                    Setting("swap-optimizer").named(), device.id, Setting("host_link").named()));
  return swap;
}

RecomputeSettings recompute_settings_of(const RecomputeChoiceSettings& c, bool swap_optimizer) {
  RecomputeSettings s;
  s.offload = c.offload;
  s.swap_optimizer = swap_optimizer;
  s.strategy = !c.recompute_strategy.empty() ? c.recompute_strategy
               : c.offload                   ? "offload"
               : c.auto_recompute            ? "per-layer"
                                             : "";
  if ((c.host_link_overlap || c.host_memory) && !s.offload)
    throw UserError(
        "E-USAGE", fmt::format("{} and {} price the offload of activations; add {}",
                               Setting("host_link_overlap").named(), Setting("host_memory").named(),
                               Setting("offload").named()));
  if (c.host_link_gibps && !s.offload && !swap_optimizer)
    throw UserError("E-USAGE",
                    fmt::format("{} prices the copies of offloaded activations or of swapped "
                                "optimizer states; add {} or {}",
                                Setting("host_link").named(), Setting("offload").named(),
                                Setting("swap-optimizer").named()));
  if (c.host_link_gibps) {
    if (!(*c.host_link_gibps > 0) || !std::isfinite(*c.host_link_gibps))
      throw UserError(
          "E-USAGE",
          fmt::format("{}: give a bandwidth > 0 in GiB/s",
                      Setting("host_link").named(fmt::format("{}", *c.host_link_gibps))));
    s.host_link_bytes_per_s = *c.host_link_gibps * sdk::kBytesPerGiB;
  }
  if (c.host_link_overlap) {
    if (!(*c.host_link_overlap >= 0 && *c.host_link_overlap <= 1))
      throw UserError(
          "E-USAGE",
          fmt::format(
              "{}: give a share from 0 (copies never overlap compute) to 1 (they always may)",
              Setting("host_link_overlap").named(fmt::format("{}", *c.host_link_overlap))));
    s.host_link_overlap = *c.host_link_overlap;
  }
  if (c.host_memory) {
    const auto bytes = sdk::memory_size_bytes(*c.host_memory);
    if (!bytes || *bytes <= 0)
      throw UserError("E-USAGE",
                      fmt::format("{}: not a size; write it as 256GB (= 256 GiB), 512MB, 1TB",
                                  Setting("host_memory").named(*c.host_memory)));
    s.host_memory_bytes = static_cast<double>(*bytes);
  }
  return s;
}

}  // namespace ndsearch
