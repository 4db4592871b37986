// SPDX-License-Identifier: Apache-2.0
// a3.cpp: Ascend A3 (Atlas A3 super-node, Ascend 910C), one die per device.
#include "plugins/common/gemm_efficiency.hpp"
#include "plugins/common/devices/ascend.hpp"

namespace ndsearch::plugins::ascend {

sdk::Device a3() {
  // 376 TFLOP/s fp16/bf16 per die (CloudMatrix384 paper, arXiv 2506.12708:
  // "each die 376 TFLOPS@FP16"); no fp8 on the 910 series.
  constexpr double kPeak = 376.0e12;
  sdk::Device d;
  d.id = "ascend-a3";
  d.name = "Huawei Ascend A3 (one 910C die)";
  d.vendor = "Huawei";
  d.memory_bytes = kMemoryBytes;               // 128 GB per package, 64 per die
  d.memory_bandwidth_bytes_per_s = 1.6e12;     // 3.2 TB/s per package (CloudMatrix384)
  d.reserved_bytes = kReservedBytes;
  // 6.92 GiB/s: the slowest die of a 2-node job (reference §4, A3).
  d.host_link_bytes_per_s = 6.92 * (1 << 30);
  d.peaks = {
      {"bf16", kPeak, gemm_efficiency_curve(kPeak, kBestFraction, kGemmFixedCostS)},
      {"fp16", kPeak, gemm_efficiency_curve(kPeak, kBestFraction, kGemmFixedCostS)},
  };
  // The reference's A3 levels (§4): 16 dies per node at 200 GB/s, 24 nodes
  // per super-node (384 dies) at 25 GB/s, then the network at 10 GB/s; they
  // reproduce its pipeline bound (§3.7). The 200 GB/s matches the paper's
  // 7 x 224 Gb/s UB links per die (196e9 bytes/s per direction).
  d.levels = {
      {16, NDS_LINK_SWITCH, 200.0e9, 200.0e9, kInsideLatencyS, "UB inside a 16-die node"},
      {16 * 24, NDS_LINK_SWITCH, 25.0e9, 25.0e9, kInsideLatencyS, "UB across a 24-node super-node"},
      {0, NDS_LINK_SWITCH, 10.0e9, 10.0e9, kNetworkLatencyS, "RoCE between super-nodes"},
  };
  d.assumes =
      "Atlas A3 super-node: 16 dies per node on UB (200 GB/s per die), 24 nodes per "
      "super-node (25 GB/s per die), RoCE beyond (10 GB/s per die); the reference's figures";
  return d;
}

}  // namespace ndsearch::plugins::ascend
