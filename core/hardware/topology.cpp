// SPDX-License-Identifier: Apache-2.0
#include "core/hardware/topology.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/support/user_error.hpp"

namespace ndsearch {

size_t level_spanned(const Device& device, uint64_t group_size, uint64_t stride) {
  const uint64_t span = group_size * std::max<uint64_t>(stride, 1);
  for (size_t i = 0; i < device.levels.size(); ++i) {
    const uint32_t joined = device.levels[i].group_devices;
    if (joined == 0 || joined >= span) return i;
  }
  throw UserError("E-DEVICE-TOPOLOGY",
                  fmt::format("device {} ({}): a group of {} devices {} apart spans {} devices, "
                              "more than its outermost level joins; give the last level 0 "
                              "(unbounded) devices",
                              device.id, device.source, group_size, stride, span));
}

double group_bandwidth_bytes_per_s(const Device& device, uint64_t group_size, uint64_t stride) {
  if (group_size <= 1) return 0;
  const TopologyLevel& level = device.levels[level_spanned(device, group_size, stride)];
  if (level.link_kind == NDS_LINK_MESH) {
    return std::min(level.device_bandwidth_bytes_per_s,
                    static_cast<double>(group_size - 1) * level.link_bandwidth_bytes_per_s);
  }
  return level.device_bandwidth_bytes_per_s;
}

uint64_t pipeline_bound(const Device& device, uint64_t devices) {
  uint64_t best = 1;
  for (uint64_t n = devices; n > 1; n /= 2) {
    const size_t level = level_spanned(device, n, 1);
    const uint64_t below = level == 0 ? 1 : device.levels[level - 1].group_devices;
    best = std::max(best, n / below);
  }
  return best;
}

}  // namespace ndsearch
