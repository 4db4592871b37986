// SPDX-License-Identifier: Apache-2.0
// ascend_a3.cpp: one die of an Ascend 910C in a CloudMatrix384 super-node
// (Atlas A3), from the published description: Zuo et al., "Serving Large
// Language Models on Huawei CloudMatrix384", arXiv 2506.12708 v2 (§3, Fig.
// 2-4, Table 1; v3 removed most figures), and Huawei's Ascend/msmodeling
// tensor_cast/device.py @1e5a50b (ATLAS_800_A3_752T_128G_DIE).
#include "plugins/common/devices/ascend.hpp"

namespace ndsearch::plugins::ascend {

namespace {
// Two dies share a package over a 270 GB/s (per direction) on-package link
// (§3.3.1, Fig. 3). HCCL's default bus share for it: no measurement.
constexpr double kDieLinkBytesPerS = 270.0e9;
// The unified bus: 7 x 224 Gb/s per die, 196 GB/s per direction (§3.3.1),
// the same to every die of the 384-NPU (768-die) super-node through two
// tiers of non-blocking switches (§3.2). A die reads from another at
// 164-167 GB/s, across or inside a node (Table 1): 0.84.
constexpr double kUbBytesPerS = 196.0e9;
constexpr double kUbBusEfficiency = 0.84;
constexpr uint32_t kSuperNodeDies = 2 * 384;
// RDMA between super-nodes: 200 Gb/s per die (§3.2).
constexpr double kRdmaBytesPerS = 25.0e9;
// A die writes to host memory over the unified bus at 107-110 GB/s and reads
// at 147-151 (Table 1): the slower direction.
constexpr double kHostLinkBytesPerS = 107.0e9;
// Each die's HBM: 1.6 TB/s (§3.3.1: 3.2 TB/s a package); a memory-bound MLA
// kernel reaches 1346 GB/s of it, 0.84 (Table 9).
constexpr double kMemoryBandwidthEfficiency = 0.84;
}  // namespace

sdk::Device a3() {
  sdk::Device d;
  d.id = "ascend-a3";
  d.name = "Huawei Ascend 910C die (CloudMatrix384, Atlas A3)";
  // No published A3 run to fit on: each die is the 910B's 24 cube cores
  // under the same CANN and torch_npu or MindSpore, so the A2's trainer fits
  // (host costs per layer and step, kernels against their micro-benchmarks)
  // stand in rather than H100's (docs/ascend.md).
  d.overheads_of = "ascend-a2";
  d.vendor = "Huawei";
  d.memory_bytes = kMemoryBytes;  // 128 GB a package, 64 a die (§3.3.1)
  d.memory_bandwidth_bytes_per_s = 1.6e12;
  d.memory_bandwidth_efficiency = kMemoryBandwidthEfficiency;
  d.reserved_bytes = kReservedBytes;
  d.host_link_bytes_per_s = kHostLinkBytesPerS;
  // Each die has 24 cube cores (§3.3.1), the 910B's: msmodeling models the
  // die with the 24-core 910B's 353.9 TFLOP/s bf16 and 376 fp16.
  d.peaks = cube_peaks(24);
  sdk::TopologyLevel package{2,
                             NDS_LINK_SWITCH,
                             kDieLinkBytesPerS,
                             kDieLinkBytesPerS,
                             kInsideLatencyS,
                             "the package's die-to-die link"};
  sdk::TopologyLevel ub{kSuperNodeDies,  NDS_LINK_SWITCH,
                        kUbBytesPerS,    kUbBytesPerS,
                        kInsideLatencyS, "unified bus across the 384-NPU super-node"};
  ub.bus_efficiency = kUbBusEfficiency;
  sdk::TopologyLevel rdma{0,
                          NDS_LINK_SWITCH,
                          kRdmaBytesPerS,
                          kRdmaBytesPerS,
                          kNetworkLatencyS,
                          "RDMA between super-nodes, 200 Gb/s a die"};
  d.levels = {package, ub, rdma};
  d.figure_sources =
      "peak bf16 353.9, fp16 376 TFLOP/s a die: 24 cube cores a die (CloudMatrix384 paper, arXiv "
      "2506.12708 v2 §3.3.1) at the 910B's 1.8 GHz x 8192 FLOP a cycle (Huawei's "
      "Ascend/msmodeling, ATLAS_800_A3_752T_128G_DIE)\n"
      "GEMMs: the 910B's curve (mamf-finder, 0.91 at best; the paper's INT8 GEMMs reach 77-83 %)\n"
      "HBM 64 GB at 1.6 TB/s a die (§3.3.1: 128 GB, 3.2 TB/s a package), 0.84 achieved: a "
      "memory-bound MLA kernel at 1346 GB/s (Table 9)\n"
      "die-to-die link 270 GB/s a direction (§3.3.1)\n"
      "unified bus: 7 x 224 Gb/s = 196 GB/s a die a direction to any of 768 dies (§3.2-3.3), "
      "0.84 of it read die to die across or inside a node (Table 1: 164-167 GB/s)\n"
      "RDMA between super-nodes: 200 Gb/s a die (§3.2)\n"
      "host link 107 GB/s: a die writing host memory over the unified bus (Table 1)\n"
      "latencies 10 us on the bus, 20 us over RDMA: the reference system's HCCL figures";
  d.assumes =
      "CloudMatrix384 super-node (arXiv 2506.12708 v2): two dies a package on a 270 GB/s link, "
      "768 dies on the unified bus at 196 GB/s a die per direction, 200 Gb/s RDMA a die beyond";
  return d;
}

}  // namespace ndsearch::plugins::ascend
