// SPDX-License-Identifier: Apache-2.0
// collectives.hpp: the alpha-beta time of one collective on the topology
// level its group spans (DESIGN §8.3): latency per step plus bytes over the
// per-device bandwidth of that level, with ring volumes.
#pragma once

#include <cstdint>

#include "core/hardware/device.hpp"

namespace ndsearch {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };

// Seconds for a group of `n` devices `stride` apart to run `kind` on a
// tensor of `bytes` (the full tensor: gathered size for all-gather and
// reduce-scatter, each device's data for all-reduce, what each device
// exchanges for all-to-all, the message for send/recv, n then the ring it
// goes round: its slowest hop sets the pace). Ring volumes: all-
// reduce moves 2(n-1)/n of it, all-gather / reduce-scatter / all-to-all
// (n-1)/n, over n-1 (2(n-1) for all-reduce) latency-bound steps, at 80 % of
// the level's bandwidth (what NCCL reaches: collectives.cpp). A group of one
// costs nothing.
double collective_seconds(const Device& device, Collective kind, uint64_t n, uint64_t stride, double bytes);

}  // namespace ndsearch
