// SPDX-License-Identifier: Apache-2.0
// ascend_nd.cpp: the reference's own Ascend figures (reference/nd_behaviour.md
// §4), kept as `ascend-a2-nd` and `ascend-a3-nd` so that a user can reproduce
// the reference's answers; the cited devices are ascend_a2.cpp and
// ascend_a3.cpp. No vendor figure backs the values below.
#include "plugins/common/devices/ascend.hpp"
#include "plugins/common/gemm_efficiency.hpp"

namespace ndsearch::plugins::ascend {

namespace {
// The reference's GEMM estimate: best sustained fraction 0.70 and a fixed
// cost of 10 us per GEMM (no measurement behind either).
constexpr double kNdBestFraction = 0.70;
constexpr double kNdGemmFixedCostS = 10.0e-6;

std::vector<sdk::DtypePeak> nd_peaks(double peak) {
  return {
      {"bf16", peak, gemm_efficiency_curve(peak, kNdBestFraction, kNdGemmFixedCostS)},
      {"fp16", peak, gemm_efficiency_curve(peak, kNdBestFraction, kNdGemmFixedCostS)},
  };
}

// What the reference's two devices share: a 64 GB die at 1.6 TB/s, the
// 70 % GEMM curve over `peak`.
sdk::Device nd_device(const char* id, const char* name, double peak, double host_link) {
  sdk::Device d;
  d.id = id;
  d.name = name;
  d.vendor = "Huawei";
  d.memory_bytes = kMemoryBytes;
  d.memory_bandwidth_bytes_per_s = 1.6e12;
  d.reserved_bytes = kReservedBytes;
  d.host_link_bytes_per_s = host_link;
  d.peaks = nd_peaks(peak);
  d.figure_sources =
      "every figure: the reference system's (SAPP ND), kept to reproduce its answers";
  // The reference's figures describe the same NPUs: the A2's trainer fits.
  d.overheads_of = "ascend-a2";
  return d;
}
}  // namespace

sdk::Device a2_nd() {
  // 16.0 GiB/s to the host (the reference's A2).
  sdk::Device d = nd_device("ascend-a2-nd", "Huawei Ascend A2 as the reference describes it",
                            313.0e12, 16.0 * (1 << 30));
  // 8 NPUs per node at 50 GB/s, then the network at 10 GB/s: the levels that
  // reproduce the reference's pipeline bound (§3.7).
  d.levels = {
      {8, NDS_LINK_SWITCH, 50.0e9, 50.0e9, kInsideLatencyS, "HCCS inside an 8-NPU node"},
      {0, NDS_LINK_SWITCH, 10.0e9, 10.0e9, kNetworkLatencyS, "RoCE between nodes"},
  };
  d.assumes =
      "the reference's A2: 313 TFLOP/s, GEMMs at 70 % of it, 8 NPUs per node at 50 GB/s, "
      "10 GB/s between nodes (the reference system's figures, no vendor's: docs/ascend.md)";
  return d;
}

sdk::Device a3_nd() {
  // 6.92 GiB/s to the host: the slowest die of a 2-node job (the reference's A3).
  sdk::Device d = nd_device("ascend-a3-nd", "Huawei Ascend A3 die as the reference describes it",
                            376.0e12, 6.92 * (1 << 30));
  // 16 dies per node at 200 GB/s, 24 nodes per super-node (384 dies) at
  // 25 GB/s, then the network at 10 GB/s (§4; the pipeline bound of §3.7).
  d.levels = {
      {16, NDS_LINK_SWITCH, 200.0e9, 200.0e9, kInsideLatencyS, "UB inside a 16-die node"},
      {16 * 24, NDS_LINK_SWITCH, 25.0e9, 25.0e9, kInsideLatencyS, "UB across a 24-node super-node"},
      {0, NDS_LINK_SWITCH, 10.0e9, 10.0e9, kNetworkLatencyS, "RoCE between super-nodes"},
  };
  d.assumes =
      "the reference's A3: 376 TFLOP/s a die, GEMMs at 70 % of it, 16 dies per node at "
      "200 GB/s, 24 nodes per super-node at 25 GB/s, 10 GB/s beyond (the reference system's "
      "figures, no vendor's: docs/ascend.md)";
  return d;
}

}  // namespace ndsearch::plugins::ascend
