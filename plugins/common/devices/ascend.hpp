// SPDX-License-Identifier: Apache-2.0
// ascend.hpp: the Ascend devices we ship. A device is one NPU
// die, as in the reference (reference/nd_behaviour.md §4): an A2 (Ascend 910B)
// NPU, or one of the two dies of an A3 (Ascend 910C) package.
#pragma once

#include <ndsearch/sdk/hardware.hpp>

namespace ndsearch::plugins::ascend {

sdk::Device a2();
sdk::Device a3();

// A 64 GB die of which MindSpore configs give the trainer 58 GB
// (`max_device_memory: 58GB`, the reference's configs, read as GiB, DESIGN
// §8.5): the driver's reserve (~2.7 GiB: 61.3 GiB visible) plus HCCL's
// buffers (2 x 200 MB per communicator by default, CANN HCCL_BUFFSIZE).
inline constexpr uint64_t kMemoryBytes = uint64_t{64} << 30;
inline constexpr uint64_t kReservedBytes = uint64_t{6} << 30;

// No public GEMM efficiency for Ascend: best sustained fraction 0.70 and a
// fixed cost of 10 us per GEMM, documented estimates.
inline constexpr double kBestFraction = 0.70;
inline constexpr double kGemmFixedCostS = 10.0e-6;

// HCCL collective latencies of the reference's hsdp branch (§4): 1e-5 s
// inside a node or super-node, 2e-5 s over RoCE.
inline constexpr double kInsideLatencyS = 1.0e-5;
inline constexpr double kNetworkLatencyS = 2.0e-5;

}  // namespace ndsearch::plugins::ascend
