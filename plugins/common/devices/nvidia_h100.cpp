// SPDX-License-Identifier: Apache-2.0
// h100.cpp: NVIDIA H100 SXM5 80GB in a DGX H100.
// Source: NVIDIA H100 Tensor Core GPU data sheet (SXM column) and the NVIDIA
// H100 architecture whitepaper unless noted; measured efficiencies from
// reference/microbenchmarks.md (section numbers below).
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

namespace {
// Best bf16 GEMM measured on H100 SXM: 794.5 TFLOP/s of 989.4 = 0.803, taken
// as 0.80 (maximum achievable matmul FLOPS, stas00/ml-engineering @744d01e,
// torch 2.7.0+cu126, §1a; "H200 is the same"). tf32 and fp16 have no row of
// their own: the bf16 fraction.
constexpr double kBestFraction = 0.80;
// Best fp8 (e4m3) GEMM on H100 SXM: 1402.6 of 1978.9 TFLOP/s = 0.709 (same
// table, §1a).
constexpr double kFp8BestFraction = 0.709;

// STREAM triad on H100 SXM 80GB: 2.97 of 3.35 TB/s = 0.887 (Azure/
// AI-benchmarking-guide ND H100 v5, §4).
constexpr double kMemoryBandwidthEfficiency = 0.887;

// NVLink 4 inside a DGX H100/H200: an 8-GPU all-reduce of 8 GiB with Ring
// forced reaches 365.6 GB/s busbw, 365.6 / 450 = 0.81; NVLS (NVLink SHARP)
// reaches 473.1, 473.1 / 365.6 = 1.29 times the ring (H200, nccl-tests,
// stas00/ml-engineering "SHARP", §3b; same NVLink 4 and NVSwitch as H100).
constexpr double kNvlinkBusEfficiency = 0.81;
constexpr double kNvlsAllReduceSpeedup = 1.29;
// NVLink 4 moves mid-size messages below its plateau (NCCL pipelines them in
// chunks): an 8-GPU NVLS all-reduce on ND H100 v5 reaches 234.45, 361.78,
// 423.38, 466.35 and 478.87 GB/s busbw at 16 MB, 64 MB, 256 MB, 1 GB and 8 GB
// (Azure/AI-benchmarking-guide, §3a). With t = 12 x 3 us + 1.75·(S + S0) /
// 480 GB/s, those give S0 = 8, 12, 26, 22 and 11 MB; the median, 12 MB,
// reproduces the table from 16 MB to 8 GB within 12 %. H200 shares it.
constexpr double kNvlinkHalfBandwidthBytes = 12.0e6;
}  // namespace

std::vector<sdk::DtypePeak> gh100_peaks(double fp8_best_fraction) {
  // Dense tensor-core peaks; the data sheet prints sparse figures (x2).
  constexpr double kSmall = kHopperSmallDimFractionAt192;
  return {
      {"fp32", 66.9e12, {}},  // non-tensor FP32
      tensor_peak("tf32", 494.7e12, kBestFraction, kSmall),
      with_attention(tensor_peak("bf16", 989.4e12, kBestFraction, kSmall), hopper_attention()),
      with_attention(tensor_peak("fp16", 989.4e12, kBestFraction, kSmall), hopper_attention()),
      tensor_peak("fp8", 1978.9e12, fp8_best_fraction, kSmall),
  };
}

// NVLink 4: 18 links, 900 GB/s both directions = 450e9 per direction, 25e9 per
// link; DGX H100/H200: 8 GPUs on NVSwitch, 8 ConnectX-7 400 Gb/s NDR
// InfiniBand NICs (one per GPU) = 50e9 bytes/s per direction.
std::vector<sdk::TopologyLevel> dgx_h100_levels() {
  return dgx_levels({25.0e9, 450.0e9, "NVLink 4 through NVSwitch", kNvlinkBusEfficiency,
                     kNvlsAllReduceSpeedup, kNvlinkHalfBandwidthBytes},
                    {50.0e9, 50.0e9, "NDR InfiniBand, one 400 Gb/s NIC per GPU",
                     kNic400BusEfficiency, 0, kInfinibandHalfBandwidthBytes});
}

sdk::Device h100_sxm() {
  sdk::Device d;
  d.id = "nvidia-h100-sxm";
  d.name = "NVIDIA H100 SXM5 80GB";
  d.vendor = "NVIDIA";
  d.memory_bytes = uint64_t{80} << 30;       // "80GB HBM3", read as GiB (DESIGN §8.5)
  d.memory_bandwidth_bytes_per_s = 3.35e12;  // 3.35 TB/s
  d.memory_bandwidth_efficiency = kMemoryBandwidthEfficiency;
  d.reserved_bytes = kCudaReservedBytes;
  d.host_link_bytes_per_s = 64.0e9;  // PCIe Gen5 x16, per direction
  d.peaks = gh100_peaks(kFp8BestFraction);
  d.levels = dgx_h100_levels();
  d.assumes =
      "DGX H100 node: 8 GPUs on NVSwitch (NVLink 4, 450 GB/s per direction per GPU); one "
      "400 Gb/s NDR InfiniBand NIC per GPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::nvidia

namespace ndsearch::plugins::nvidia {

// The H100 of Meta's Grand Teton hosts, on which torchtitan's published
// benchmarks ran (pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md:
// "96GB HBM2e with 2.4 TB/sec peak memory bandwidth", 8 per host on NVLink,
// "400 Gb/s per GPU" between hosts, "the default 500W power limit"). The same
// GH100 compute as the SXM5 part: its peaks, efficiencies and NVLink; the
// lower power limit's clocks are the trainer fit's to find (issue 38), not a
// figure any vendor prints.
sdk::Device h100_gt96() {
  sdk::Device d = h100_sxm();
  d.id = "nvidia-h100-gt96";
  d.name = "NVIDIA H100 96GB HBM2e (Grand Teton, 500 W)";
  d.memory_bytes = uint64_t{96} << 30;      // "96GB", read as GiB (DESIGN §8.5)
  d.memory_bandwidth_bytes_per_s = 2.4e12;  // "2.4 TB/sec"
  d.assumes =
      "Grand Teton host: 8 GPUs on NVLink (as DGX H100's NVSwitch, 450 GB/s per direction per "
      "GPU); 400 Gb/s RDMA per GPU between hosts; GH100 peaks as the SXM5 part's";
  return d;
}

}  // namespace ndsearch::plugins::nvidia
