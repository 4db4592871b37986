// SPDX-License-Identifier: Apache-2.0
// b200.cpp: NVIDIA B200 in a DGX B200.
// Source: NVIDIA DGX B200 and HGX B200 specifications unless noted.
#include "plugins/common/gemm_efficiency.hpp"
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

sdk::Device b200() {
  // Best bf16 GEMM measured: 1,745 TFLOP/s = 0.776 of peak (stas00/ml-engineering,
  // maximum achievable matmul FLOPS).
  constexpr double kBestFraction = 0.776;
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
  d.peaks = {
      {"fp32", 75.0e12, {}},  // HGX B200 (1,000 W) non-tensor FP32
      {"tf32", 1.1e15, gemm_efficiency_curve(1.1e15, kBestFraction, kGemmFixedCostS)},
      {"bf16", 2.25e15, gemm_efficiency_curve(2.25e15, kBestFraction, kGemmFixedCostS)},
      {"fp16", 2.25e15, gemm_efficiency_curve(2.25e15, kBestFraction, kGemmFixedCostS)},
      {"fp8", 4.5e15, gemm_efficiency_curve(4.5e15, kBestFraction, kGemmFixedCostS)},
  };
  // NVLink 5: 18 links, 1.8 TB/s both directions = 900e9 per direction, 50e9
  // per link; 8 ConnectX-7 400 Gb/s NICs, one per GPU = 50e9 bytes/s.
  d.levels = dgx_levels(50.0e9, 900.0e9, "NVLink 5 through NVSwitch", 50.0e9,
                        "InfiniBand, one 400 Gb/s NIC per GPU");
  d.assumes =
      "DGX B200 node: 8 GPUs on NVSwitch (NVLink 5, 900 GB/s per direction per GPU); one "
      "400 Gb/s InfiniBand NIC per GPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::nvidia
