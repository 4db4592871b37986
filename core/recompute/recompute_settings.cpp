// SPDX-License-Identifier: Apache-2.0
#include "core/recompute/recompute_settings.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/units.hpp>

#include <cmath>

#include "core/support/user_error.hpp"

namespace ndsearch {

RecomputeSettings recompute_settings_of(const RecomputeChoiceSettings& c) {
  RecomputeSettings s;
  s.offload = c.offload;
  s.strategy = !c.recompute_strategy.empty() ? c.recompute_strategy
               : c.offload                   ? "offload"
               : c.auto_recompute            ? "per-layer"
                                             : "";
  if ((c.host_link_gibps || c.host_link_overlap || c.host_memory) && !s.offload)
    throw UserError(
        "E-USAGE", fmt::format("{}, {} and {} price offload; add {}", Setting("host_link").named(),
                               Setting("host_link_overlap").named(), Setting("host_memory").named(),
                               Setting("offload").named()));
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
