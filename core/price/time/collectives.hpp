// SPDX-License-Identifier: Apache-2.0
// collectives.hpp: the time of one collective on the topology levels its
// group spans (DESIGN §8.3): ring (or tree) latency plus bytes over the
// bandwidth the group reaches, with the NICs of a node's members pooled when
// the group crosses nodes and all-to-all split into its intra- and inter-node
// shares.
#pragma once

#include <cstdint>

#include "core/hardware/device.hpp"

namespace ndsearch {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };

// Without a figure from the device, collectives reach this fraction of a
// level's per-device bandwidth: NCCL's ring all-reduce bus bandwidth on
// NVSwitch nodes is 0.77-0.81 of the per-direction NVLink rate (nccl-tests on
// 8 x A100 231.6 of 300 GB/s, 8 x H200 forced Ring 365.6 of 450 GB/s:
// shared/reference/microbenchmarks.md §3a-3b).
inline constexpr double kDefaultBusEfficiency = 0.8;

// Seconds for a group of `n` devices `stride` apart to run `kind` on a
// tensor of `bytes` (the full tensor: gathered size for all-gather and
// reduce-scatter, each device's data for all-reduce, what each device
// exchanges for all-to-all, the message for send/recv, n then the ring it
// goes round: its slowest hop sets the pace). Ring volumes: all-reduce moves
// 2(n-1)/n of it, all-gather / reduce-scatter / all-to-all (n-1)/n, at each
// level's bus efficiency times S / (S + its half-bandwidth size). A group
// of one costs nothing.
double collective_seconds(const Device& device, Collective kind, uint64_t n, uint64_t stride,
                          double bytes);

// The nodes a group of `n` devices `stride` apart spans (1 inside one node).
uint64_t group_nodes(const Device& device, uint64_t n, uint64_t stride);

// An MoE dispatch or combine that sends one copy of a token per destination
// node over the network and forwards it to the experts inside that node over
// the node's links (DeepEP's normal kernels, HybridEP; DeepSeek-V3 report
// §3.2.2): each device of the group sends `network_bytes` over its NIC and
// moves `node_bytes` over its node's links, both at once, posted together.
// A group inside one node moves `node_bytes` over the node's links alone.
double node_dedup_seconds(const Device& device, uint64_t n, uint64_t stride, double network_bytes,
                          double node_bytes);

}  // namespace ndsearch
