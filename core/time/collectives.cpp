// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "core/hardware/topology.hpp"
#include "core/time/collectives.hpp"

namespace ndsearch {
namespace {
// NCCL's collectives reach about 80 % of a link's line rate: nccl-tests
// all-reduce bus bandwidth on 8 x A100 over NVSwitch is about 230-240 GB/s of
// the 300 GB/s per direction, and an NDR NIC moves 46-48 of its 50 GB/s
// (NVIDIA/nccl-tests issue 290); protocol and synchronisation take the rest.
constexpr double kAchievableFraction = 0.8;
}  // namespace

double collective_seconds(const Device& device, Collective kind, uint64_t n, uint64_t stride, double bytes) {
  if (kind == Collective::send_recv) {
    // One message to the next rank of a ring of n at `stride` (n = 2: a
    // pipeline neighbour). Every hop moves in step, so the slowest sets the
    // pace: the one that crosses the outermost level the ring spans, a pair
    // as far apart as half the ring.
    const uint64_t ring = std::max<uint64_t>(n, 2);
    const TopologyLevel& level = device.levels[level_spanned(device, ring, stride)];
    const uint64_t hop_stride = ring / 2 * stride;
    return level.latency_s + bytes / (kAchievableFraction * group_bandwidth_bytes_per_s(device, 2, hop_stride));
  }
  if (n <= 1 || bytes <= 0) return 0;
  const TopologyLevel& level = device.levels[level_spanned(device, n, stride)];
  const double bandwidth = kAchievableFraction * group_bandwidth_bytes_per_s(device, n, stride);
  const double fraction = static_cast<double>(n - 1) / static_cast<double>(n);
  const double steps = static_cast<double>(n - 1);
  if (kind == Collective::all_reduce) return 2 * steps * level.latency_s + 2 * fraction * bytes / bandwidth;
  return steps * level.latency_s + fraction * bytes / bandwidth;
}

}  // namespace ndsearch
