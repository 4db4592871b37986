// SPDX-License-Identifier: Apache-2.0
// b200.cpp: NVIDIA B200 in a DGX B200.
// Source: NVIDIA DGX B200 and HGX B200 specifications unless noted; measured
// efficiencies from reference/microbenchmarks.md (section numbers below).
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

namespace {
// Best bf16 GEMM measured on B200 SXM: 1745.0 of 2250 TFLOP/s = 0.776; fp8:
// 3432.5 of 4500 = 0.763 (maximum achievable matmul FLOPS, stas00/
// ml-engineering @744d01e, torch 2.7.1+cu128, §1a). tf32 and fp16: the bf16
// fraction.
constexpr double kBestFraction = 0.776;
constexpr double kFp8BestFraction = 0.763;

// NVLink 5 inside a B200 node (p6-b200, NCCL 2.27.7): an 8-GPU all-reduce of
// 8 GiB reaches 682.2 GB/s busbw on Ring, 682.2 / 900 = 0.758, and 838.0 with
// NVLS, 838.0 / 682.2 = 1.23 times the ring (stas00/ml-engineering "SHARP", §3b).
constexpr double kNvlinkBusEfficiency = 0.758;
constexpr double kNvlsAllReduceSpeedup = 1.23;
// No all-reduce table by size for B200 beyond §3b's 8 GiB figures: Hopper's
// half-bandwidth message size, 12 MB (nvidia_h100.cpp, §3a), is assumed.
constexpr double kNvlinkHalfBandwidthBytes = 12.0e6;
// No STREAM figure for B200 was found (§4): memory_bandwidth_efficiency is
// left to the host's default.
}  // namespace

sdk::Device b200() {
  sdk::Device d;
  d.id = "nvidia-b200";
  d.name = "NVIDIA B200 (DGX B200)";
  d.vendor = "NVIDIA";
  // DGX B200: 1,440 GB of HBM3e for 8 GPUs = 180 GB each (the launch figure of
  // 192 GB is the physical stack size), read as GiB (DESIGN §8.5).
  d.memory_bytes = uint64_t{180} << 30;
  d.memory_bandwidth_bytes_per_s = 8.0e12;  // DGX B200: 64 TB/s for 8 GPUs
  d.reserved_bytes = kCudaReservedBytes;
  d.host_link_bytes_per_s = 64.0e9;  // PCIe Gen5 x16 (HGX B200: 128 GB/s both directions)
  // Dense peaks: HGX B200 lists 4.5 PF bf16, 9 PF fp8 and 2.2 PF tf32 with
  // sparsity; DGX B200's 72 PF fp8 for 8 GPUs is the sparse figure too.
  constexpr double kSmall = kHopperSmallDimFractionAt192;
  d.peaks = {
      {"fp32", 75.0e12, {}},  // HGX B200 (1,000 W) non-tensor FP32
      tensor_peak("tf32", 1.1e15, kBestFraction, kSmall),
      with_attention(tensor_peak("bf16", 2.25e15, kBestFraction, kSmall), blackwell_attention()),
      with_attention(tensor_peak("fp16", 2.25e15, kBestFraction, kSmall), blackwell_attention()),
      tensor_peak("fp8", 4.5e15, kFp8BestFraction, kSmall),
  };
  // NVLink 5: 18 links, 1.8 TB/s both directions = 900e9 per direction, 50e9
  // per link; 8 ConnectX-7 400 Gb/s NICs, one per GPU = 50e9 bytes/s.
  d.levels = dgx_levels({50.0e9, 900.0e9, "NVLink 5 through NVSwitch", kNvlinkBusEfficiency,
                         kNvlsAllReduceSpeedup, kNvlinkHalfBandwidthBytes},
                        {50.0e9, 50.0e9, "InfiniBand, one 400 Gb/s NIC per GPU",
                         kNic400BusEfficiency, 0, kInfinibandHalfBandwidthBytes});
  d.assumes =
      "DGX B200 node: 8 GPUs on NVSwitch (NVLink 5, 900 GB/s per direction per GPU); one "
      "400 Gb/s InfiniBand NIC per GPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::nvidia
