// SPDX-License-Identifier: Apache-2.0
// a100.cpp: NVIDIA A100 SXM4 80GB in a DGX A100.
// Source: NVIDIA A100 Tensor Core GPU data sheet (80GB SXM column) unless
// noted; measured efficiencies from reference/microbenchmarks.md (section
// numbers below).
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

namespace {
// Best bf16 GEMM measured on A100 SXM: 271.2 of 312 TFLOP/s = 0.869 (maximum
// achievable matmul FLOPS, stas00/ml-engineering @744d01e, torch 2.6.0+cu126,
// §1a; the table's older CUDA 12.1 row read 267.9 = 0.859). tf32 and fp16
// have no row of their own: the bf16 fraction.
constexpr double kBestFraction = 0.869;

// A GEMM with a 192-wide output on A100: FP16 cuBLASLt 802816×192×768 =
// 157.8 TFLOP/s; its roofline is compute (256.5 TFLOP/s at 16384³: 0.923 ms,
// against 1.54 GB at 1.70 TB/s: 0.906 ms), so 157.8 / 256.5 = 0.615 (Azure/
// AI-benchmarking-guide ND A100 v4, §1b).
constexpr double kSmallDimFractionAt192 = 0.615;

// STREAM triad on A100 80GB SXM: 1.70 of 2.039 TB/s = 0.834 (Azure/
// AI-benchmarking-guide ND A100 v4, §4).
constexpr double kMemoryBandwidthEfficiency = 0.834;

// NVLink 3: an 8-GPU all-reduce of 8 GB reaches 231.58 GB/s busbw, 231.58 /
// 300 = 0.77 (Azure/AI-benchmarking-guide ND A100 v4, NCCL 2.18.5, §3a; the
// source labels it NVLS, but A100 has no NVLink SHARP: Ring/Tree). No
// in-network reduction.
constexpr double kNvlinkBusEfficiency = 0.77;
// Mid-size messages stay below that plateau: the same method as H100's
// (nvidia_h100.cpp) on the A100 column of §3a, plateau 231.6 GB/s, gives
// S0 = 14, 21, 17 and 9 MB at 16 MB, 64 MB, 256 MB and 1 GB: 16 MB.
constexpr double kNvlinkHalfBandwidthBytes = 16.0e6;

// HDR InfiniBand: 3 nodes x 8 A100-40GB with 4 x HDR 200G per node, 84.8 GB/s
// average all-reduce busbw of a 100 GB/s theory = 0.85 (NVIDIA/nccl-tests
// issue #119, §3c).
constexpr double kHdrBusEfficiency = 0.85;
}  // namespace

sdk::Device a100_80g() {
  sdk::Device d;
  d.id = "nvidia-a100-80g";
  d.name = "NVIDIA A100 SXM4 80GB";
  d.vendor = "NVIDIA";
  d.memory_bytes = uint64_t{80} << 30;        // "80GB HBM2e", read as GiB (DESIGN §8.5)
  d.memory_bandwidth_bytes_per_s = 2.039e12;  // 2,039 GB/s
  d.memory_bandwidth_efficiency = kMemoryBandwidthEfficiency;
  d.reserved_bytes = kCudaReservedBytes;
  d.host_link_bytes_per_s = 32.0e9;  // PCIe Gen4 x16, per direction
  // Dense tensor-core peaks (the data sheet's starred figures are 2:4 sparse).
  constexpr double kSmall = kSmallDimFractionAt192;
  d.peaks = {
      {"fp32", 19.5e12, {}},  // non-tensor FP32
      tensor_peak("tf32", 156.0e12, kBestFraction, kSmall),
      with_attention(tensor_peak("bf16", 312.0e12, kBestFraction, kSmall), ampere_attention()),
      with_attention(tensor_peak("fp16", 312.0e12, kBestFraction, kSmall), ampere_attention()),
  };
  // NVLink 3: 12 links, 600 GB/s both directions = 300e9 per direction, 25e9
  // per link; DGX A100: 8 GPUs on 6 NVSwitches, 8 x 200 Gb/s HDR InfiniBand
  // (one per GPU) = 25e9 bytes/s per direction.
  d.levels = dgx_levels({25.0e9, 300.0e9, "NVLink 3 through NVSwitch", kNvlinkBusEfficiency, 0,
                         kNvlinkHalfBandwidthBytes},
                        {25.0e9, 25.0e9, "HDR InfiniBand, one 200 Gb/s NIC per GPU",
                         kHdrBusEfficiency, 0, kInfinibandHalfBandwidthBytes});
  d.assumes =
      "DGX A100 node: 8 GPUs on NVSwitch (NVLink 3, 300 GB/s per direction per GPU); one "
      "200 Gb/s HDR InfiniBand NIC per GPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::nvidia
