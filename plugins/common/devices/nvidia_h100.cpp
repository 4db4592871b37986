// SPDX-License-Identifier: Apache-2.0
// h100.cpp: NVIDIA H100 SXM5 80GB in a DGX H100.
// Source: NVIDIA H100 Tensor Core GPU data sheet (SXM column) and the NVIDIA
// H100 architecture whitepaper unless noted.
#include "plugins/common/gemm_efficiency.hpp"
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

namespace {
// Best bf16 GEMM measured on H100 SXM: 792 TFLOP/s = 0.80 of peak
// (stas00/ml-engineering, maximum achievable matmul FLOPS table).
constexpr double kBestFraction = 0.80;
}  // namespace

std::vector<sdk::DtypePeak> gh100_peaks() {
  // Dense tensor-core peaks; the data sheet prints sparse figures (x2).
  return {
      {"fp32", 66.9e12, {}},  // non-tensor FP32
      {"tf32", 494.7e12, gemm_efficiency_curve(494.7e12, kBestFraction, kGemmFixedCostS)},
      {"bf16", 989.4e12, gemm_efficiency_curve(989.4e12, kBestFraction, kGemmFixedCostS)},
      {"fp16", 989.4e12, gemm_efficiency_curve(989.4e12, kBestFraction, kGemmFixedCostS)},
      {"fp8", 1978.9e12, gemm_efficiency_curve(1978.9e12, kBestFraction, kGemmFixedCostS)},
  };
}

// NVLink 4: 18 links, 900 GB/s both directions = 450e9 per direction, 25e9 per
// link; DGX H100/H200: 8 GPUs on NVSwitch, 8 ConnectX-7 400 Gb/s NDR
// InfiniBand NICs (one per GPU) = 50e9 bytes/s per direction.
std::vector<sdk::TopologyLevel> dgx_h100_levels() {
  return dgx_levels(25.0e9, 450.0e9, "NVLink 4 through NVSwitch", 50.0e9,
                    "NDR InfiniBand, one 400 Gb/s NIC per GPU");
}

sdk::Device h100_sxm() {
  sdk::Device d;
  d.id = "nvidia-h100-sxm";
  d.name = "NVIDIA H100 SXM5 80GB";
  d.vendor = "NVIDIA";
  d.memory_bytes = uint64_t{80} << 30;  // "80GB HBM3", read as GiB (DESIGN §8.5)
  d.memory_bandwidth_bytes_per_s = 3.35e12;  // 3.35 TB/s
  d.reserved_bytes = kCudaReservedBytes;
  d.host_link_bytes_per_s = 64.0e9;  // PCIe Gen5 x16, per direction
  d.peaks = gh100_peaks();
  d.levels = dgx_h100_levels();
  d.assumes =
      "DGX H100 node: 8 GPUs on NVSwitch (NVLink 4, 450 GB/s per direction per GPU); one "
      "400 Gb/s NDR InfiniBand NIC per GPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::nvidia
