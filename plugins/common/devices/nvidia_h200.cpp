// SPDX-License-Identifier: Apache-2.0
// h200.cpp: NVIDIA H200 SXM 141GB in a DGX/HGX H200: the H100's GH100 compute
// and NVLink with more and faster memory.
// Source: NVIDIA H200 Tensor Core GPU data sheet; measured efficiencies from
// reference/microbenchmarks.md (section numbers below).
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

namespace {
// Best fp8 (e4m3) GEMM on H200 SXM: 1453.4 of 1978.9 TFLOP/s = 0.734
// (maximum achievable matmul FLOPS, stas00/ml-engineering @744d01e, torch
// 2.7.1+cu128, §1a). bf16: as H100 SXM ("H200 is the same").
constexpr double kFp8BestFraction = 0.734;

// STREAM triad on H200 141GB: 4.15 of 4.8 TB/s = 0.865 (Azure/
// AI-benchmarking-guide ND H200 v5, §4).
constexpr double kMemoryBandwidthEfficiency = 0.865;
}  // namespace

sdk::Device h200() {
  sdk::Device d;
  d.id = "nvidia-h200";
  d.name = "NVIDIA H200 SXM 141GB";
  d.vendor = "NVIDIA";
  d.memory_bytes = uint64_t{141} << 30;     // "141GB HBM3e", read as GiB (DESIGN §8.5)
  d.memory_bandwidth_bytes_per_s = 4.8e12;  // 4.8 TB/s
  d.memory_bandwidth_efficiency = kMemoryBandwidthEfficiency;
  d.reserved_bytes = kCudaReservedBytes;
  d.host_link_bytes_per_s = 64.0e9;  // PCIe Gen5 x16, per direction
  // 989.4 TFLOP/s dense bf16, as H100 SXM. Attention: H100's FlashAttention-3
  // curves; the same kernel on H200 runs within 4 % of H100 (about 4 % slower
  // forward, 3.5 % faster backward: Dao-AILab/flash-attention issue #1438, §2c).
  d.peaks = gh100_peaks(kFp8BestFraction);
  d.levels = dgx_h100_levels();  // the NVLink figures were measured on H200 (h100.cpp)
  d.assumes =
      "DGX H200 node: 8 GPUs on NVSwitch (NVLink 4, 450 GB/s per direction per GPU); one "
      "400 Gb/s NDR InfiniBand NIC per GPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::nvidia
