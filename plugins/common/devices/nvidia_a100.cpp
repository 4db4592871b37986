// SPDX-License-Identifier: Apache-2.0
// a100.cpp: NVIDIA A100 SXM4 80GB in a DGX A100.
// Source: NVIDIA A100 Tensor Core GPU data sheet (80GB SXM column) unless noted.
#include "plugins/common/gemm_efficiency.hpp"
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

sdk::Device a100_80g() {
  // Best bf16 GEMM measured: 267.9 TFLOP/s = 0.859 of peak (stas00/ml-engineering,
  // "maximum achievable matmul FLOPS" table, CUDA 12.1).
  constexpr double kBestFraction = 0.859;
  sdk::Device d;
  d.id = "nvidia-a100-80g";
  d.name = "NVIDIA A100 SXM4 80GB";
  d.vendor = "NVIDIA";
  d.memory_bytes = uint64_t{80} << 30;  // "80GB HBM2e", read as GiB (DESIGN §8.5)
  d.memory_bandwidth_bytes_per_s = 2.039e12;  // 2,039 GB/s
  d.reserved_bytes = kCudaReservedBytes;
  d.host_link_bytes_per_s = 32.0e9;  // PCIe Gen4 x16, per direction
  // Dense tensor-core peaks (the data sheet's starred figures are 2:4 sparse).
  d.peaks = {
      {"fp32", 19.5e12, {}},  // non-tensor FP32
      {"tf32", 156.0e12, gemm_efficiency_curve(156.0e12, kBestFraction, kGemmFixedCostS)},
      {"bf16", 312.0e12, gemm_efficiency_curve(312.0e12, kBestFraction, kGemmFixedCostS)},
      {"fp16", 312.0e12, gemm_efficiency_curve(312.0e12, kBestFraction, kGemmFixedCostS)},
  };
  // NVLink 3: 12 links, 600 GB/s both directions = 300e9 per direction, 25e9
  // per link; DGX A100: 8 GPUs on 6 NVSwitches, 8 x 200 Gb/s HDR InfiniBand
  // (one per GPU) = 25e9 bytes/s per direction.
  d.levels = dgx_levels(25.0e9, 300.0e9, "NVLink 3 through NVSwitch", 25.0e9,
                        "HDR InfiniBand, one 200 Gb/s NIC per GPU");
  d.assumes =
      "DGX A100 node: 8 GPUs on NVSwitch (NVLink 3, 300 GB/s per direction per GPU); one "
      "200 Gb/s HDR InfiniBand NIC per GPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::nvidia
