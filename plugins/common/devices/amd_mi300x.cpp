// SPDX-License-Identifier: Apache-2.0
// amd_mi300x.cpp: AMD Instinct MI300X on the 8-GPU platform.
// Source: AMD Instinct MI300X data sheet unless noted.
#include "plugins/common/devices/shipped_devices.hpp"
#include "plugins/common/gemm_efficiency.hpp"

namespace ndsearch::plugins::amd {
namespace {

// Best bf16 GEMM measured: 782 TFLOP/s = 0.60 of peak (stas00/ml-engineering,
// maximum achievable matmul FLOPS, ROCm 6.2).
constexpr double kBestFraction = 0.60;
// Fixed cost of one GEMM launch and tail for the default curve (as NVIDIA's).
constexpr double kGemmFixedCostS = 5.0e-6;

}  // namespace

sdk::Device mi300x() {
  sdk::Device d;
  d.id = "amd-mi300x";
  d.name = "AMD Instinct MI300X";
  d.vendor = "AMD";
  d.memory_bytes = uint64_t{192} << 30;     // "192 GB HBM3", read as GiB (DESIGN §8.5)
  d.memory_bandwidth_bytes_per_s = 5.3e12;  // 5.3 TB/s
  // HIP context, RCCL buffers and allocator slack, as for CUDA: an estimate.
  d.reserved_bytes = uint64_t{2} << 30;
  d.host_link_bytes_per_s = 64.0e9;  // PCIe Gen5 x16, per direction
  d.peaks = {
      {"fp32", 163.4e12, {}},  // matrix FP32
      {"tf32", 653.7e12, gemm_efficiency_curve(653.7e12, kBestFraction, kGemmFixedCostS)},
      {"bf16", 1307.4e12, gemm_efficiency_curve(1307.4e12, kBestFraction, kGemmFixedCostS)},
      {"fp16", 1307.4e12, gemm_efficiency_curve(1307.4e12, kBestFraction, kGemmFixedCostS)},
      {"fp8", 2614.9e12, gemm_efficiency_curve(2614.9e12, kBestFraction, kGemmFixedCostS)},
  };
  d.levels = {
      // 7 Infinity Fabric (xGMI) links per GPU, fully connecting 8 GPUs: a
      // mesh, 64 GB/s per link per direction (AMD ROCm blog "Understanding
      // RCCL bandwidth and xGMI performance on MI300X"); 7 x 64 = 448e9 per
      // direction (AMD's 896 GB/s counts both). Latency: an estimate, as NVLink's.
      {8, NDS_LINK_MESH, 64.0e9, 448.0e9, 5.0e-6, "Infinity Fabric (xGMI) full mesh"},
      // One 400 Gb/s NIC per GPU between nodes (e.g. Azure ND MI300X v5:
      // 8 x 400 Gb/s NDR InfiniBand) = 50e9 bytes/s per direction.
      {0, NDS_LINK_SWITCH, 50.0e9, 50.0e9, 8.0e-6, "InfiniBand, one 400 Gb/s NIC per GPU"},
  };
  d.assumes =
      "8-GPU MI300X platform: GPUs fully connected by 7 Infinity Fabric links each (64 GB/s "
      "per link per direction); one 400 Gb/s InfiniBand NIC per GPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::amd
