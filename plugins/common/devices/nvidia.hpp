// SPDX-License-Identifier: Apache-2.0
// nvidia.hpp: the NVIDIA devices we ship, one file each.
#pragma once

#include <ndsearch/sdk/hardware.hpp>

#include <vector>

namespace ndsearch::plugins::nvidia {

sdk::Device a100_80g();
sdk::Device h100_sxm();
sdk::Device h200();
sdk::Device b200();

// An 8-GPU DGX/HGX node: NVLink through NVSwitch inside, one InfiniBand NIC
// per GPU between nodes (the DGX A100/H100/H200/B200 reference designs).
std::vector<sdk::TopologyLevel> dgx_levels(double nvlink_link_bytes_per_s,
                                           double nvlink_device_bytes_per_s,
                                           const char* nvlink_name, double nic_bytes_per_s,
                                           const char* nic_name);

// The GH100 compute (dense peaks) and DGX H100 network, shared by H100 SXM and
// H200 (same die, clocks, NVLink and NICs).
std::vector<sdk::DtypePeak> gh100_peaks();
std::vector<sdk::TopologyLevel> dgx_h100_levels();

// Latencies of one collective step (t = latency + bytes / bandwidth):
// NCCL's small-message all-reduce inside an NVSwitch node takes 3.5-6 us
// (NVIDIA/nccl issues 1984 and 1259); across InfiniBand 5-10 us.
inline constexpr double kNvlinkLatencyS = 3.0e-6;
inline constexpr double kInfinibandLatencyS = 8.0e-6;

// Runtime reserve (DESIGN §8.4): CUDA context (~0.3-0.4 GB with lazy module
// loading, pytorch issues 107667 and 109888), NCCL communicator buffers
// (4 MiB per peer and channel by default) and caching-allocator slack.
// An estimate: no vendor states it.
inline constexpr uint64_t kCudaReservedBytes = uint64_t{2} << 30;

// Fixed cost of one GEMM launch and tail, for the default efficiency curve.
inline constexpr double kGemmFixedCostS = 5.0e-6;

}  // namespace ndsearch::plugins::nvidia
