// SPDX-License-Identifier: Apache-2.0
// ascend.hpp: the Ascend devices we ship. A device is one NPU die, as in the
// reference (reference/nd_behaviour.md §4): an A2 (Ascend 910B) NPU, or one
// of the two dies of an A3 (Ascend 910C) package. docs/ascend.md gives every
// figure with its source.
#pragma once

#include <ndsearch/sdk/hardware.hpp>

namespace ndsearch::plugins::ascend {

// Cited figures (ascend_a2.cpp, ascend_a3.cpp).
sdk::Device a2();       // Atlas 800T A2: 20-core 910B (910B3)
sdk::Device a2_podc();  // Atlas 900 A2 PoDc: 24-core 910B
sdk::Device a3();       // one die of a 910C in a CloudMatrix384 super-node
// The reference's own figures (ascend_nd.cpp).
sdk::Device a2_nd();
sdk::Device a3_nd();

// A 64 GB die of which MindSpore configs give the trainer 58 GB
// (`max_device_memory: 58GB`, the reference's configs, read as GiB, DESIGN
// §8.5): the driver's reserve (~2.7 GiB: 61.3 GiB visible) plus HCCL's
// buffers (2 x 200 MB per communicator by default, CANN HCCL_BUFFSIZE).
inline constexpr uint64_t kMemoryBytes = uint64_t{64} << 30;
inline constexpr uint64_t kReservedBytes = uint64_t{6} << 30;

// HCCL collective latencies of the reference's hsdp branch (§4): 1e-5 s
// inside a node or super-node, 2e-5 s over RoCE. No HCCL benchmark publishes
// a small-message latency; the links' own (0.5 us HCCS, 1.5 us RoCE in
// Huawei's Ascend/msmodeling tensor_cast/device.py, 1.2-1.9 us for a 512 B
// read in CloudMatrix384's Table 1) leave out HCCL's software.
inline constexpr double kInsideLatencyS = 1.0e-5;
inline constexpr double kNetworkLatencyS = 2.0e-5;

// The cube units' dense bf16 and fp16 peaks of a 910B-class die with `cores`
// AI cores, and the GEMM curve every cited Ascend device shares
// (ascend_a2.cpp says where each number comes from).
std::vector<sdk::DtypePeak> cube_peaks(int cores);

}  // namespace ndsearch::plugins::ascend
