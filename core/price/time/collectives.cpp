// SPDX-License-Identifier: Apache-2.0
#include "core/price/time/collectives.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/hardware/topology.hpp"

namespace ndsearch {
namespace {

// The fraction of a level's plateau a collective of `bytes` reaches: NCCL
// moves a message in pipelined chunks, so mid-size messages stay below it,
// S / (S + S_half) with S_half the level's half-bandwidth size (0: none).
double efficiency(const TopologyLevel& level, double bytes) {
  const double plateau = level.bus_efficiency > 0 ? level.bus_efficiency : kDefaultBusEfficiency;
  const double half = level.half_bandwidth_bytes;
  return half > 0 && bytes > 0 ? plateau * bytes / (bytes + half) : plateau;
}

// Seconds for one member to move `bytes` at `level`'s per-device bandwidth,
// at the efficiency a `message` of that size reaches.
double level_seconds(const TopologyLevel& level, double bytes, double message) {
  return bytes / (efficiency(level, message) * level.device_bandwidth_bytes_per_s);
}

// Latency-bound steps of one ring phase over n members; for an all-reduce
// NCCL switches to a tree (about 2·log2 n steps) where the ring's n-1 would
// cost more (all-gather and reduce-scatter run rings only).
double phase_steps(uint64_t n, bool tree_allowed) {
  const double ring = static_cast<double>(n - 1);
  if (!tree_allowed) return ring;
  const double levels = static_cast<double>(std::bit_width(n - 1));  // ceil(log2 n) for n > 1
  return std::min(ring, 2 * levels);
}

// How many of a group's `n` members, `stride` apart, share one unit of
// topology level `level` (a node, for the level above it): the group's
// members below that level.
uint64_t members_below(const Device& device, size_t level, uint64_t n, uint64_t stride) {
  if (level == 0) return 1;
  const uint64_t unit = device.levels[level - 1].group_devices;
  const uint64_t s = std::max<uint64_t>(stride, 1);
  if (s >= unit) return 1;
  return std::max<uint64_t>(1, std::min<uint64_t>(n, unit / s));
}

// Bytes/s each member moves in a ring (or in a node-local share) over the
// level `spanned`: at the innermost level its switch or mesh bandwidth; above
// it the NICs of the group's members on one node work in parallel, one ring
// per NIC (NCCL opens a ring per NIC: NVIDIA/nccl issue 601), so g members
// per node move g times one NIC's rate, capped by the node-local links every
// byte also crosses.
double ring_bandwidth(const Device& device, size_t spanned, uint64_t n, uint64_t stride,
                      double bytes) {
  const TopologyLevel& level = device.levels[spanned];
  if (spanned == 0)
    return efficiency(level, bytes) * group_bandwidth_bytes_per_s(device, n, stride);
  const double pooled = static_cast<double>(members_below(device, spanned, n, stride)) *
                        efficiency(level, bytes) * level.device_bandwidth_bytes_per_s;
  const TopologyLevel& below = device.levels[spanned - 1];
  return std::min(pooled, efficiency(below, bytes) * below.device_bandwidth_bytes_per_s);
}

}  // namespace

double collective_seconds(const Device& device, Collective kind, uint64_t n, uint64_t stride,
                          double bytes) {
  if (kind == Collective::send_recv) {
    // One message to the next rank of a ring of n at `stride` (n = 2: a
    // pipeline neighbour). Every hop moves in step, so the slowest sets the
    // pace: the one that crosses the outermost level the ring spans, a pair
    // as far apart as half the ring, over one link or NIC.
    const uint64_t ring = std::max<uint64_t>(n, 2);
    const size_t spanned = level_spanned(device, ring, stride);
    const TopologyLevel& level = device.levels[spanned];
    const uint64_t hop_stride = ring / 2 * stride;
    return level.latency_s +
           bytes / (efficiency(level, bytes) * group_bandwidth_bytes_per_s(device, 2, hop_stride));
  }
  if (n <= 1 || bytes <= 0) return 0;
  const size_t spanned = level_spanned(device, n, stride);
  const TopologyLevel& level = device.levels[spanned];
  const double members = static_cast<double>(n);
  const double fraction = (members - 1) / members;
  if (kind == Collective::all_to_all) {
    // Hierarchical: each member sends (g-1)/n of its data to the members on
    // its own node over the node's links and (n-g)/n over its own NIC, both
    // at once; the sends are all posted together (one latency).
    if (spanned == 0)
      return level.latency_s + fraction * bytes / ring_bandwidth(device, 0, n, stride, bytes);
    const double g = static_cast<double>(members_below(device, spanned, n, stride));
    const TopologyLevel& below = device.levels[spanned - 1];
    return level.latency_s + std::max(level_seconds(below, (g - 1) / members * bytes, bytes),
                                      level_seconds(level, (members - g) / members * bytes, bytes));
  }
  const double bandwidth = ring_bandwidth(device, spanned, n, stride, bytes);
  const double steps = phase_steps(n, kind == Collective::all_reduce);
  if (kind == Collective::all_reduce) {
    // In-network reduction (NVLS, SHARP) raises the all-reduce's bus bandwidth.
    const double speedup = level.all_reduce_speedup > 1 ? level.all_reduce_speedup : 1;
    return 2 * steps * level.latency_s + 2 * fraction * bytes / (bandwidth * speedup);
  }
  return steps * level.latency_s + fraction * bytes / bandwidth;
}

uint64_t group_nodes(const Device& device, uint64_t n, uint64_t stride) {
  const size_t spanned = level_spanned(device, n, stride);
  if (spanned == 0 || n <= 1) return 1;
  return std::max<uint64_t>(1, n / members_below(device, spanned, n, stride));
}

double node_dedup_seconds(const Device& device, uint64_t n, uint64_t stride, double network_bytes,
                          double node_bytes) {
  if (n <= 1) return 0;
  const size_t spanned = level_spanned(device, n, stride);
  const TopologyLevel& level = device.levels[spanned];
  if (spanned == 0)
    return level.latency_s + node_bytes / ring_bandwidth(device, 0, n, stride, node_bytes);
  return level.latency_s +
         std::max(level_seconds(device.levels[spanned - 1], node_bytes, node_bytes),
                  level_seconds(level, network_bytes, network_bytes));
}

}  // namespace ndsearch
