// SPDX-License-Identifier: Apache-2.0
// ascend_a2.cpp: the Atlas A2 training nodes (Ascend 910B NPUs, 8 a node):
// the Atlas 800T A2 server and the Atlas 900 A2 PoDc cluster. Huawei
// publishes no data sheet text we could read for either; each figure below
// names the published source it comes from (docs/ascend.md lists them).
#include <string>

#include "plugins/common/devices/ascend.hpp"
#include "plugins/common/gemm_efficiency.hpp"

namespace ndsearch::plugins::ascend {

namespace {
// One cube unit multiplies 16x16x16 fp16/bf16 per cycle (8192 FLOP) at
// 1.8 GHz (the CANN platform file Ascend910B2.ini: cube_freq=1800, 24 cube
// cores; the 910B3 has 20): Huawei's modelling tool takes exactly
// cores x 1.8 GHz x 8192 as the bf16 peak (Ascend/msmodeling
// tensor_cast/device.py @1e5a50b: ATLAS_800_A2_376T_64G bf16 353.9T,
// ATLAS_800_A2_313T_64G bf16 294.9T) and the marketed figures, 376 and 313
// TFLOP/s, as the fp16 peak.
constexpr double kCubeFlopsPerCycle = 8192;
constexpr double kCubeClockHz = 1.8e9;
double fp16_peak(int cores) {
  return cores == 24 ? 376.0e12 : 313.0e12;
}

// Best bf16 GEMM measured on a 24-core 910B (Ascend910B2C): 322.5 of 353.9
// TFLOP/s = 0.91, with mamf-finder, the maximum-achievable-matmul search the
// H100's 0.80 comes from (gameofdimension/gpu_benchmark README @1103b99a;
// torch.mm reaches 328 elsewhere, gameofdimension/limulidae @36d3650). The
// same run's smaller shapes give the fixed cost per GEMM: 2304x5120x1536 at
// 272.6 TFLOP/s and 14336x4096x4096 at 317.3 take 20.4 and 22.4 us more than
// their FLOPs at the best rate; 20 us.
constexpr double kBestFraction = 0.91;
constexpr double kGemmFixedCostS = 20.0e-6;

// torch.exp on a 910B moves 642 GB/s of input (limulidae's bench_membw.py
// counts the input only), 1284 GB/s read + write: 0.80 of 1.6 TB/s.
constexpr double kMemoryBandwidthEfficiency = 0.80;

// HCCS: the 8 NPUs of a node are a full mesh (Huawei's PyTorch training
// migration guide, performance_tuning_0034), 7 links of 28 GB/s per
// direction each, 196 GB/s per NPU (msmodeling's A2 intra-node level,
// "unidirectional"; 56 GB/s bidirectional a link). An 8-NPU all-gather
// reaches 149 GB/s of algorithm bandwidth (busbw 130) and an all-reduce 72
// (busbw 126): 0.65 of 196 (limulidae README, CANN 8.0.0.beta1).
constexpr double kHccsLinkBytesPerS = 28.0e9;
constexpr double kHccsBusEfficiency = 0.65;
// RoCE: one 200 GbE port per NPU, 25 GB/s (msmodeling's A2 inter-node
// level; CloudMatrix384 paper v2 §4.1: "~25 GB/s or 200 Gbps" between
// nodes). A device-to-device RDMA transfer reaches 22.6 GB/s, 0.90 (HIXL's
// A2 benchmark, libochao-huawei/hixl @fce14bb; point to point, the only
// measurement published).
constexpr double kRoceBytesPerS = 25.0e9;
constexpr double kRoceBusEfficiency = 0.90;
// Host to device and back: 17-20 GB/s (the same HIXL benchmark); the lower.
constexpr double kHostLinkBytesPerS = 17.0e9;

std::vector<sdk::TopologyLevel> a2_levels() {
  sdk::TopologyLevel hccs{8,
                          NDS_LINK_MESH,
                          kHccsLinkBytesPerS,
                          7 * kHccsLinkBytesPerS,
                          kInsideLatencyS,
                          "HCCS full mesh inside an 8-NPU node"};
  hccs.bus_efficiency = kHccsBusEfficiency;
  sdk::TopologyLevel roce{0,
                          NDS_LINK_SWITCH,
                          kRoceBytesPerS,
                          kRoceBytesPerS,
                          kNetworkLatencyS,
                          "RoCE between nodes, one 200 GbE port per NPU"};
  roce.bus_efficiency = kRoceBusEfficiency;
  return {hccs, roce};
}

// Where each figure of an A2 node comes from (`ndsearch hardware ID`).
std::string a2_sources(int cores) {
  const std::string peaks =
      cores == 24 ? "peak bf16 353.9, fp16 376 TFLOP/s: 24 cube cores x 1.8 GHz x 8192 FLOP a "
                    "cycle (CANN's Ascend910B2.ini; Huawei's Ascend/msmodeling "
                    "tensor_cast/device.py, ATLAS_800_A2_376T_64G)\n"
                  : "peak bf16 294.9, fp16 313 TFLOP/s: 20 cube cores x 1.8 GHz x 8192 FLOP a "
                    "cycle (CANN's Ascend910B3; Huawei's Ascend/msmodeling tensor_cast/device.py, "
                    "ATLAS_800_A2_313T_64G)\n";
  return peaks +
         "GEMMs 0.91 of peak at best, 20 us a GEMM: mamf-finder on an Ascend910B2C, 322.5 of 353.9 "
         "TFLOP/s and two smaller shapes (gameofdimension/gpu_benchmark)\n"
         "HBM 64 GB at 1.6 TB/s (msmodeling's A2 profiles), 0.80 achieved: torch.exp moves 642 "
         "GB/s of input (gameofdimension/limulidae)\n"
         "HCCS: a full mesh of 8 (Huawei's PyTorch training migration guide), 7 links of 28 GB/s "
         "a direction, 196 GB/s an NPU (msmodeling), 0.65 of it for 8-NPU all-gathers and "
         "all-reduces (limulidae)\n"
         "RoCE: one 200 GbE port an NPU, 25 GB/s (msmodeling; CloudMatrix384 paper v2 §4.1), "
         "0.90 of it device to device (Huawei's HIXL A2 benchmark)\n"
         "host link 17 GB/s: HIXL's A2 benchmark, 17-20 GB/s host to device and back\n"
         "latencies 10 us in a node, 20 us between nodes: the reference system's HCCL figures (no "
         "benchmark publishes one)\n"
         "6 GiB reserved: the driver's ~2.7 GiB and HCCL's buffers (CANN HCCL_BUFFSIZE)";
}

sdk::Device a2_node(int cores) {
  sdk::Device d;
  d.vendor = "Huawei";
  d.memory_bytes = kMemoryBytes;  // 64 GB HBM2e, read as GiB (Ascend910B2.ini memory_size)
  // 1.6 TB/s: msmodeling's A2 profiles; four HBM2e stacks at the 1600 MHz
  // HBM clock npu-smi reports give 1.64 TB/s.
  d.memory_bandwidth_bytes_per_s = 1.6e12;
  d.memory_bandwidth_efficiency = kMemoryBandwidthEfficiency;
  d.reserved_bytes = kReservedBytes;
  d.host_link_bytes_per_s = kHostLinkBytesPerS;
  d.peaks = cube_peaks(cores);
  d.levels = a2_levels();
  d.figure_sources = a2_sources(cores);
  return d;
}
}  // namespace

std::vector<sdk::DtypePeak> cube_peaks(int cores) {
  const double bf16 = cores * kCubeFlopsPerCycle * kCubeClockHz;
  const double fp16 = fp16_peak(cores);
  return {
      {"bf16", bf16, gemm_efficiency_curve(bf16, kBestFraction, kGemmFixedCostS)},
      {"fp16", fp16, gemm_efficiency_curve(fp16, kBestFraction, kGemmFixedCostS)},
  };
}

// The Atlas 800T A2 ships with a 313 or a 376 TFLOP/s (fp16) NPU (Huawei's
// Atlas 800T A2 white paper, as quoted); CANN's own benchmark documents run
// on "Atlas 800T A2 (910B3)", the 20-core part: the default A2.
sdk::Device a2() {
  sdk::Device d = a2_node(20);
  d.id = "ascend-a2";
  d.name = "Huawei Atlas 800T A2 (Ascend 910B3, 20 AI cores)";
  d.assumes =
      "Atlas 800T A2 node with the 20-core 910B3 (294.9 TFLOP/s bf16): 8 NPUs in an HCCS full "
      "mesh (28 GB/s a link, 196 GB/s an NPU, per direction), one 200 GbE RoCE port per NPU "
      "between nodes";
  return d;
}

// No published source names the NPU of the Atlas 900 A2 PoDc. MindFormers'
// Llama 2 card (v1.3.0) measures the same configs 1.15-1.20x faster on it
// than on the Atlas 800T A2, the ratio of the 24-core part's peak to the
// 20-core one's (353.9 / 294.9 = 1.20): the 24-core 910B, an inference the
// output states.
sdk::Device a2_podc() {
  sdk::Device d = a2_node(24);
  d.id = "ascend-a2-podc";
  d.name = "Huawei Atlas 900 A2 PoDc (Ascend 910B, 24 AI cores)";
  // The same NPU family and software as the Atlas 800T A2: one trainer fit,
  // on both's rows (docs/ascend.md).
  d.overheads_of = "ascend-a2";
  d.figure_sources +=
      "\nthe 24-core part: inferred (no source names the PoDc's NPU) from MindFormers' Llama 2 "
      "card v1.3.0, which measures the same configs 1.15-1.20x faster on it than on the Atlas "
      "800T A2, the ratio of 24 to 20 cores";
  d.assumes =
      "Atlas 900 A2 PoDc node with the 24-core 910B (353.9 TFLOP/s bf16; the part is inferred, "
      "no source names it): 8 NPUs in an HCCS full mesh (28 GB/s a link, 196 GB/s an NPU, per "
      "direction), one 200 GbE RoCE port per NPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::ascend
