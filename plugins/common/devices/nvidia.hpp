// SPDX-License-Identifier: Apache-2.0
// nvidia.hpp: the NVIDIA devices we ship, one file each.
#pragma once

#include <ndsearch/sdk/hardware.hpp>

#include <vector>

namespace ndsearch::plugins::nvidia {

sdk::Device a100_80g();
sdk::Device h100_sxm();
sdk::Device h100_gt96();
sdk::Device h200();
sdk::Device b200();

// One level of a DGX node: its bandwidths and what large collectives reach
// on it (ABI 1.1; 0 = the host's default).
struct DgxLink {
  double link_bytes_per_s;    // one link, one direction
  double device_bytes_per_s;  // all of one GPU's links at this level, one direction
  const char* name;
  double bus_efficiency;        // nccl-tests bus bandwidth / device_bytes_per_s
  double all_reduce_speedup;    // NVLS all-reduce busbw / Ring's; 0 = no in-network reduction
  double half_bandwidth_bytes;  // message size at half the bus bandwidth; 0 = every size at it
};

// An 8-GPU DGX/HGX node: NVLink through NVSwitch inside, one InfiniBand NIC
// per GPU between nodes (the DGX A100/H100/H200/B200 reference designs).
std::vector<sdk::TopologyLevel> dgx_levels(const DgxLink& nvlink, const DgxLink& network);

// A 400 Gb/s NDR InfiniBand NIC per GPU: NCCL reaches 46-48 of its 50 GB/s
// (NVIDIA/nccl-tests issue 290, an NVIDIA maintainer: 47 / 50 = 0.94); large
// multi-node collectives lose a little more to protocol and synchronisation,
// so 0.92, the low end (46 / 50). (EFA-based clouds reach less: 37 / 50 =
// 0.74 per GPU in a 4-node B200 all-reduce, stas00/ml-engineering
// network/README.md, microbenchmarks.md §3c; a device file states its own.)
inline constexpr double kNic400BusEfficiency = 0.92;

// InfiniBand between nodes reaches its plateau early: a 4-node all-reduce
// bench is at about 94 GB/s busbw by 16 MiB (1 MiB 17.13, 16 MiB 93.93, 1 GiB
// 94.15 GB/s; stas00/ml-engineering network/benchmarks/README.md,
// microbenchmarks.md §3c), so no size penalty beyond the latency term: 0.
inline constexpr double kInfinibandHalfBandwidthBytes = 0;

// The GH100 compute (dense peaks) and DGX H100 network, shared by H100 SXM and
// H200 (same die, clocks, NVLink and NICs); only the fp8 GEMM's best fraction
// was measured apart.
std::vector<sdk::DtypePeak> gh100_peaks(double fp8_best_fraction);
std::vector<sdk::TopologyLevel> dgx_h100_levels();

// A tensor-core dtype: the matmul curve from the best measured fraction
// (gemm_efficiency_curve) and the thin-GEMM multiplier from the fraction a
// GEMM with smallest dimension 192 reaches (small_dim_efficiency_curve).
sdk::DtypePeak tensor_peak(const char* dtype, double peak_flops_per_s, double best_fraction,
                           double small_dim_fraction_at_192);

// FlashAttention's causal forward and backward over the sequence length, as
// fractions of the bf16/fp16 peak (ABI 1.1), per GPU generation
// (nvidia_kernels.cpp has the measurements).
struct AttentionCurves {
  sdk::Curve forward;
  sdk::Curve backward;
};
AttentionCurves hopper_attention();     // H100, H200: FlashAttention-3
AttentionCurves ampere_attention();     // A100: FlashAttention-2, derived
AttentionCurves blackwell_attention();  // B200: FlashAttention-4
// `peak` with the attention curves (for its bf16 and fp16 entries).
sdk::DtypePeak with_attention(sdk::DtypePeak peak, const AttentionCurves& attention);

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

// A Hopper/Blackwell GEMM with a 192-wide output reaches 0.873 of its
// roofline: H100 SXM FP8 cuBLASLt 802816×192×768 (2.368e11 FLOPs) ran at
// 663.8 TFLOP/s = 0.357 ms, where its roofline allows 0.311 ms (the fp8
// operands and the 16-bit output, 925 MB, at the STREAM triad's 2.97 TB/s;
// the large-size plateau, 1382.2 TFLOP/s, would take 0.171 ms): 0.311 /
// 0.357 = 0.873 (Azure/AI-benchmarking-guide ND H100 v5, reference/
// microbenchmarks.md §1b). B200 has no such row: the same is assumed.
inline constexpr double kHopperSmallDimFractionAt192 = 0.873;

}  // namespace ndsearch::plugins::nvidia
