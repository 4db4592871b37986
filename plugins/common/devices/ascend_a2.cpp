// SPDX-License-Identifier: Apache-2.0
// a2.cpp: Ascend A2 (Atlas 800T A2 node, Ascend 910B NPU).
#include "plugins/common/gemm_efficiency.hpp"
#include "plugins/common/devices/ascend.hpp"

namespace ndsearch::plugins::ascend {

sdk::Device a2() {
  // 313 TFLOP/s fp16/bf16 for the 910B3 (20 cube cores x 16^3 MACs x 2 at
  // ~1.9 GHz); Huawei publishes no data sheet figure: an estimate consistent
  // with the 376 TFLOP/s per 24-core 910C die of the CloudMatrix384 paper.
  constexpr double kPeak = 313.0e12;
  sdk::Device d;
  d.id = "ascend-a2";
  d.name = "Huawei Ascend A2 (910B NPU)";
  d.vendor = "Huawei";
  d.memory_bytes = kMemoryBytes;  // 64 GB HBM2e, read as GiB
  // 4 HBM2e stacks; half of a 910C package's 3.2 TB/s (CloudMatrix384): an estimate.
  d.memory_bandwidth_bytes_per_s = 1.6e12;
  d.reserved_bytes = kReservedBytes;
  d.host_link_bytes_per_s = 16.0 * (1 << 30);  // 16.0 GiB/s (reference §4, A2)
  d.peaks = {
      {"bf16", kPeak, gemm_efficiency_curve(kPeak, kBestFraction, kGemmFixedCostS)},
      {"fp16", kPeak, gemm_efficiency_curve(kPeak, kBestFraction, kGemmFixedCostS)},
  };
  // The reference's A2 levels (§4): 8 NPUs per node at 50 GB/s (HCCS), then
  // the network at 10 GB/s, which reproduce its pipeline bound (§3.7).
  d.levels = {
      {8, NDS_LINK_SWITCH, 50.0e9, 50.0e9, kInsideLatencyS, "HCCS inside an 8-NPU node"},
      {0, NDS_LINK_SWITCH, 10.0e9, 10.0e9, kNetworkLatencyS, "RoCE between nodes"},
  };
  d.assumes =
      "Atlas 800T A2 node: 8 NPUs on HCCS (50 GB/s per NPU, the reference's figure); RoCE "
      "between nodes at 10 GB/s per NPU (the reference's figure)";
  return d;
}

}  // namespace ndsearch::plugins::ascend
