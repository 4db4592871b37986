// SPDX-License-Identifier: Apache-2.0
// topology.hpp: what a device's topology levels mean for a group of devices
// (DESIGN §8.3): the level a communication group spans, the bandwidth each of
// its devices gets there, and the reference's pipeline bound.
#pragma once

#include <cstdint>

#include "core/hardware/device.hpp"

namespace ndsearch {

// The index of the innermost level whose group size is at least k·s (0, the
// unbounded level, holds any group). Ranks are laid out TP innermost, then CP,
// DP, PP (DESIGN §8.3), so a group of k ranks `stride` apart covers k·stride
// consecutive devices. Throws UserError E-DEVICE-TOPOLOGY when even the last
// level is too small (a device whose levels are all bounded).
size_t level_spanned(const Device& device, uint64_t group_size, uint64_t stride);

// Bytes/s one device of the group sends in one direction at the level it
// spans: a switch level gives every device its full per-device bandwidth; on a
// mesh level a group of k devices uses k-1 of a device's direct links (capped
// by the per-device bandwidth). A group of one communicates with nobody: 0.
double group_bandwidth_bytes_per_s(const Device& device, uint64_t group_size, uint64_t stride);

// The largest number of pipeline stages the reference allows on `devices`
// devices (reference/nd_behaviour.md §3.7): over n = N, N/2, N/4, ... > 1, the
// most units of the level below the one that holds n, n / devices_below(level).
uint64_t pipeline_bound(const Device& device, uint64_t devices);

}  // namespace ndsearch
