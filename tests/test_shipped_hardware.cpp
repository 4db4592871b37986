// SPDX-License-Identifier: Apache-2.0
// test_shipped_hardware.cpp: the shipped hardware plugins load and state the
// vendors' published dense figures (the sources are cited in each plugin).
#include <catch2/catch.hpp>

#include <map>

#include "core/hardware/device.hpp"
#include "core/plugin_host/registry.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;

namespace {
constexpr uint64_t GiB = uint64_t{1} << 30;

std::map<std::string, Device> shipped_devices() {
  const PluginRegistry& registry = ndsearch::test::shipped_plugins();
  std::map<std::string, Device> devices;
  for (const auto& plugin : registry.plugins()) {
    if (plugin->interfaces.hardware == nullptr) continue;
    const nds_device* const* table = nullptr;
    size_t count = 0;
    REQUIRE(plugin->interfaces.hardware->get_devices(&table, &count) == nullptr);
    for (size_t i = 0; i < count; ++i) {
      Device d = copy_device(*table[i], plugin->id);
      devices[d.id] = d;
    }
  }
  return devices;
}

double peak(const Device& d, const std::string& dtype) {
  for (const auto& p : d.peaks)
    if (p.dtype == dtype) return p.peak_flops_per_s;
  return 0;
}
}  // namespace

TEST_CASE("The eleven shipped devices load and pass the device checks") {
  auto devices = shipped_devices();
  std::vector<std::string> ids;
  for (const auto& [id, d] : devices) {
    ids.push_back(id);
    INFO(id);
    CHECK(device_problems(d).empty());
    CHECK_FALSE(d.assumes.empty());
  }
  CHECK(ids == std::vector<std::string>{"amd-mi300x", "ascend-a2", "ascend-a2-nd", "ascend-a2-podc",
                                        "ascend-a3", "ascend-a3-nd", "nvidia-a100-80g",
                                        "nvidia-b200", "nvidia-h100-gt96", "nvidia-h100-sxm",
                                        "nvidia-h200"});
}

TEST_CASE("NVIDIA figures are the data sheets' dense ones") {
  auto devices = shipped_devices();
  const Device& h100 = devices.at("nvidia-h100-sxm");
  CHECK(peak(h100, "bf16") == 989.4e12);  // 1,979 TFLOP/s with sparsity, halved
  CHECK(h100.memory_bytes == 80 * GiB);
  CHECK(h100.memory_bandwidth_bytes_per_s == 3.35e12);
  CHECK(h100.levels.at(0).device_bandwidth_bytes_per_s == 450e9);  // 900 GB/s both ways
  CHECK(h100.levels.at(1).device_bandwidth_bytes_per_s == 50e9);   // 400 Gb/s NIC
  const Device& a100 = devices.at("nvidia-a100-80g");
  CHECK(peak(a100, "bf16") == 312e12);
  CHECK(a100.memory_bandwidth_bytes_per_s == 2.039e12);
  CHECK(peak(a100, "fp8") == 0);  // Ampere has no fp8
  const Device& h200 = devices.at("nvidia-h200");
  CHECK(peak(h200, "bf16") == 989.4e12);
  CHECK(h200.memory_bytes == 141 * GiB);
  CHECK(h200.memory_bandwidth_bytes_per_s == 4.8e12);
  // torchtitan's benchmark hosts: "96GB HBM2e with 2.4 TB/sec", the SXM5's compute.
  const Device& gt = devices.at("nvidia-h100-gt96");
  CHECK(gt.memory_bytes == 96 * GiB);
  CHECK(gt.memory_bandwidth_bytes_per_s == 2.4e12);
  CHECK(peak(gt, "bf16") == 989.4e12);
}

TEST_CASE("MI300X is a mesh of 7 Infinity Fabric links per GPU") {
  const Device mi300x = shipped_devices().at("amd-mi300x");
  CHECK(peak(mi300x, "bf16") == 1307.4e12);
  CHECK(mi300x.memory_bytes == 192 * GiB);
  CHECK(mi300x.memory_bandwidth_bytes_per_s == 5.3e12);
  const TopologyLevel& fabric = mi300x.levels.at(0);
  CHECK(fabric.link_kind == NDS_LINK_MESH);
  CHECK(fabric.group_devices == 8);
  CHECK(fabric.device_bandwidth_bytes_per_s == 7 * fabric.link_bandwidth_bytes_per_s);
}

TEST_CASE("The reference's Ascend levels: A2 8 per node and A3 16 per node then 24 nodes") {
  auto devices = shipped_devices();
  const Device& a2 = devices.at("ascend-a2-nd");
  REQUIRE(a2.levels.size() == 2);
  CHECK(a2.levels[0].group_devices == 8);
  CHECK(a2.levels[0].device_bandwidth_bytes_per_s == 50e9);
  CHECK(a2.levels[1].group_devices == 0);
  CHECK(peak(a2, "bf16") == 313e12);
  const Device& a3 = devices.at("ascend-a3-nd");
  REQUIRE(a3.levels.size() == 3);
  CHECK(a3.levels[0].group_devices == 16);
  CHECK(a3.levels[1].group_devices == 16 * 24);
  CHECK(a3.levels[1].device_bandwidth_bytes_per_s == 25e9);
  CHECK(a3.levels[2].group_devices == 0);
  CHECK(peak(a3, "bf16") == 376e12);
  // 64 GB dies whose MindSpore budget is 58 GiB (the reference's max_device_memory).
  CHECK(a3.memory_bytes - a3.reserved_bytes == 58 * GiB);
}

TEST_CASE("The default GEMM efficiency curve follows e_max F over F plus e_max peak t0") {
  const Device h100 = shipped_devices().at("nvidia-h100-sxm");
  const Curve* bf16 = nullptr;
  for (const auto& p : h100.peaks)
    if (p.dtype == "bf16") bf16 = &p.matmul_efficiency;
  REQUIRE(bf16 != nullptr);
  REQUIRE(bf16->x.size() == 6);  // 1e8 ... 1e13 FLOPs
  // e_max 0.80, peak 989.4e12, t0 5 us: knee = 0.80 * 989.4e12 * 5e-6 = 3.9576e9 FLOPs.
  // At 1e12 FLOPs: 0.80 * 1e12 / (1e12 + 3.9576e9) = 0.796846...
  CHECK(bf16->x[4] == Approx(1e12));
  CHECK(bf16->y[4] == Approx(0.80 * 1e12 / (1e12 + 3.9576e9)).epsilon(1e-12));
  CHECK(bf16->y[4] == Approx(0.796846).epsilon(1e-6));
  // At 1e9 FLOPs the launch cost dominates: 0.80 * 1e9 / 4.9576e9 = 0.16137.
  CHECK(bf16->y[1] == Approx(0.16137).epsilon(1e-4));
}

namespace {
const DtypePeak& peak_entry(const Device& d, const std::string& dtype) {
  for (const auto& p : d.peaks)
    if (p.dtype == dtype) return p;
  FAIL("no " << dtype << " peak on " << d.id);
  return d.peaks.front();
}

// The last point of a default curve (1e13 FLOPs) lies just under e_max:
// e_max · 1e13 / (1e13 + e_max · peak · 5 us), e.g. B200 fp8 0.763 · 1e13 /
// (1e13 + 0.763 · 4.5e15 · 5e-6) = 0.7617.
double plateau(double best_fraction, double peak_flops_per_s) {
  return best_fraction * 1e13 / (1e13 + best_fraction * peak_flops_per_s * 5e-6);
}
void check_best_fraction(const Device& d, const std::string& dtype, double best_fraction) {
  INFO(d.id << " " << dtype);
  const DtypePeak& p = peak_entry(d, dtype);
  CHECK(p.matmul_efficiency.y.back() ==
        Approx(plateau(best_fraction, p.peak_flops_per_s)).epsilon(1e-12));
}
}  // namespace

TEST_CASE("GEMM best fractions are the measured maximum achievable matmul FLOPS") {
  // stas00/ml-engineering MAMF table (reference/microbenchmarks.md §1a).
  auto devices = shipped_devices();
  const Device& h100 = devices.at("nvidia-h100-sxm");
  check_best_fraction(h100, "bf16", 0.80);                            // 794.5 / 989.4 = 0.803
  check_best_fraction(h100, "tf32", 0.80);                            // no row of its own: bf16's
  check_best_fraction(h100, "fp8", 0.709);                            // 1402.6 / 1978.9
  check_best_fraction(devices.at("nvidia-h200"), "bf16", 0.80);       // "H200 is the same"
  check_best_fraction(devices.at("nvidia-h200"), "fp8", 0.734);       // 1453.4 / 1978.9
  check_best_fraction(devices.at("nvidia-a100-80g"), "bf16", 0.869);  // 271.2 / 312
  check_best_fraction(devices.at("nvidia-a100-80g"), "fp16", 0.869);
  check_best_fraction(devices.at("nvidia-b200"), "bf16", 0.776);  // 1745 / 2250
  check_best_fraction(devices.at("nvidia-b200"), "fp8", 0.763);   // 3432.5 / 4500
}

TEST_CASE("Thin GEMMs: the skinny 802816x192x768 cuBLASLt row sets the 192 point") {
  // Azure/AI-benchmarking-guide (reference/microbenchmarks.md §1b): H100 FP8
  // 0.357 ms where its roofline allows 0.311 ms (925 MB at 2.97 TB/s): 0.873;
  // A100 FP16 157.8 of its compute roofline 256.5 = 0.615. Below 192 the loss
  // grows as 192/d: 1 - (1 - f)·192/d (at least 0.1); 1 from 1024 up.
  auto devices = shipped_devices();
  const Curve& h100 = peak_entry(devices.at("nvidia-h100-sxm"), "fp8").matmul_small_dim_efficiency;
  CHECK(h100.x == std::vector<double>{64, 128, 192, 1024});
  REQUIRE(h100.y.size() == 4);
  CHECK(h100.y[0] == Approx(1 - 0.127 * 3));    // 0.619
  CHECK(h100.y[1] == Approx(1 - 0.127 * 1.5));  // 0.8095
  CHECK(h100.y[2] == Approx(0.873));
  CHECK(h100.y[3] == 1.0);
  const Curve& a100 = peak_entry(devices.at("nvidia-a100-80g"), "bf16").matmul_small_dim_efficiency;
  REQUIRE(a100.y.size() == 4);
  CHECK(a100.y[0] == Approx(0.1));  // 1 - 0.385·3 < 0.1: the floor
  CHECK(a100.y[1] == Approx(1 - 0.385 * 1.5));
  CHECK(a100.y[2] == Approx(0.615));
  CHECK(peak_entry(devices.at("nvidia-b200"), "bf16").matmul_small_dim_efficiency.y == h100.y);
  // Non-tensor fp32 has no tile: no curve.
  CHECK(peak_entry(devices.at("nvidia-h100-sxm"), "fp32").matmul_small_dim_efficiency.x.empty());
}

TEST_CASE("Attention curves: FlashAttention causal kernels over the block length") {
  auto devices = shipped_devices();
  const std::vector<double> lengths = {1024, 2048, 4096, 8192};
  // H100 FA3 bf16 (tritonbench PR #1267, §2c): 8k forward 4817.44 us for
  // 2·8192²·128·48·4 = 3.2985e12 causal FLOPs = 684.7 TFLOP/s = 0.692 of 989.4;
  // 1k backward 709.66 us for 2.5 · 5.1540e10 FLOPs = 181.6 TFLOP/s = 0.184.
  const DtypePeak& h100 = peak_entry(devices.at("nvidia-h100-sxm"), "bf16");
  CHECK(h100.attention_forward_efficiency.x == lengths);
  CHECK(h100.attention_forward_efficiency.y.back() ==
        Approx(2.0 * 8192 * 8192 * 128 * 48 * 4 / 4817.44e-6 / 989.4e12).epsilon(1e-3));
  CHECK(h100.attention_backward_efficiency.y.front() ==
        Approx(2.5 * 2.0 * 1024 * 1024 * 128 * 48 * 4 / 709.66e-6 / 989.4e12).epsilon(3e-3));
  CHECK(h100.attention_backward_efficiency.y[2] == Approx(0.449));  // 444 / 989.4
  // H200: the same kernel within 4 % (flash-attention issue #1438): H100's curves.
  CHECK(peak_entry(devices.at("nvidia-h200"), "fp16").attention_forward_efficiency.y ==
        h100.attention_forward_efficiency.y);
  // A100 FA2 "up to 230 TFLOP/s" = 0.737 of 312 at 8k, H100's shape (derived):
  // 1k forward 230 / 312 · 0.368 / 0.692 = 0.392, 8k backward 230 / 312 · 0.545 / 0.692 = 0.5806.
  const DtypePeak& a100 = peak_entry(devices.at("nvidia-a100-80g"), "bf16");
  CHECK(a100.attention_forward_efficiency.y.back() == Approx(230.0 / 312.0));
  CHECK(a100.attention_forward_efficiency.y.front() == Approx(0.392).epsilon(1e-3));
  CHECK(a100.attention_backward_efficiency.y.back() == Approx(0.5806).epsilon(1e-3));
  // B200 FA4 (flash-attention PR #2280): 8k causal forward 1418.1 and backward
  // 1208.6 of 2250; 1k forward scaled by PR #2605's 1540 / 1837: 0.630 · 0.838 = 0.528.
  const DtypePeak& b200 = peak_entry(devices.at("nvidia-b200"), "bf16");
  CHECK(b200.attention_forward_efficiency.y.back() == Approx(1418.1 / 2250));
  CHECK(b200.attention_backward_efficiency.y.back() == Approx(1208.6 / 2250));
  CHECK(b200.attention_forward_efficiency.y.front() == Approx(0.528).epsilon(1e-3));
  // fp8 attention and other vendors: no curve (the host's default).
  CHECK(peak_entry(devices.at("nvidia-h100-sxm"), "fp8").attention_forward_efficiency.x.empty());
  CHECK(peak_entry(devices.at("amd-mi300x"), "bf16").attention_forward_efficiency.x.empty());
  CHECK(peak_entry(devices.at("ascend-a3"), "bf16").attention_backward_efficiency.x.empty());
}

TEST_CASE("Memory bandwidth efficiency is the STREAM triad over the data sheet's bandwidth") {
  // Azure/AI-benchmarking-guide STREAM (reference/microbenchmarks.md §4).
  auto devices = shipped_devices();
  CHECK(devices.at("nvidia-h100-sxm").memory_bandwidth_efficiency ==
        Approx(2.97 / 3.35).epsilon(1e-3));
  CHECK(devices.at("nvidia-h200").memory_bandwidth_efficiency == Approx(4.15 / 4.8).epsilon(1e-3));
  CHECK(devices.at("nvidia-a100-80g").memory_bandwidth_efficiency ==
        Approx(1.70 / 2.039).epsilon(1e-3));
  // Ascend: torch.exp on a 910B moves 642 GB/s of input, 1284 read + write,
  // of 1.6 TB/s (gameofdimension/limulidae); a memory-bound MLA kernel on a
  // 910C die 1346 of 1600 GB/s (CloudMatrix384, Table 9).
  for (const char* id : {"ascend-a2", "ascend-a2-podc"})
    CHECK(devices.at(id).memory_bandwidth_efficiency == Approx(2 * 642.0 / 1600).epsilon(5e-3));
  CHECK(devices.at("ascend-a3").memory_bandwidth_efficiency == Approx(1346.0 / 1600).epsilon(5e-3));
  // No STREAM figure found for B200 or MI300X, none in the reference's
  // figures: 0, the host's default.
  for (const char* id : {"nvidia-b200", "amd-mi300x", "ascend-a2-nd", "ascend-a3-nd"})
    CHECK(devices.at(id).memory_bandwidth_efficiency == 0);
}

TEST_CASE("Level bus efficiencies and NVLS speedups are nccl-tests bus bandwidths") {
  auto devices = shipped_devices();
  // H200 8-GPU 8 GiB all-reduce, forced Ring 365.6 GB/s of 450, NVLS 473.1
  // (stas00/ml-engineering "SHARP", §3b); H100 has the same NVLink 4.
  for (const char* id : {"nvidia-h100-sxm", "nvidia-h200"}) {
    INFO(id);
    const TopologyLevel& nvlink = devices.at(id).levels.at(0);
    CHECK(nvlink.bus_efficiency == Approx(365.6 / 450).epsilon(5e-3));        // 0.81
    CHECK(nvlink.all_reduce_speedup == Approx(473.1 / 365.6).epsilon(5e-3));  // 1.29
    CHECK(devices.at(id).levels.at(1).bus_efficiency ==
          0.92);  // 46 of 50 GB/s per NDR NIC (nccl-tests #290)
    CHECK(devices.at(id).levels.at(1).all_reduce_speedup == 0);
  }
  // A100 NVLink 3: 231.58 of 300 GB/s at 8 GB (Azure, §3a), no NVLS; HDR
  // 84.8 of 100 GB/s (nccl-tests issue #119, §3c).
  const Device& a100 = devices.at("nvidia-a100-80g");
  CHECK(a100.levels.at(0).bus_efficiency == Approx(231.58 / 300).epsilon(3e-3));
  CHECK(a100.levels.at(0).all_reduce_speedup == 0);
  CHECK(a100.levels.at(1).bus_efficiency == Approx(0.848).epsilon(3e-3));
  // B200 NVLink 5: Ring 682.2 of 900, NVLS 838.0 (§3b).
  const Device& b200 = devices.at("nvidia-b200");
  CHECK(b200.levels.at(0).bus_efficiency == Approx(682.2 / 900).epsilon(1e-3));
  CHECK(b200.levels.at(0).all_reduce_speedup == Approx(838.0 / 682.2).epsilon(3e-3));
  // A2's HCCS: an 8-NPU all-gather at 149 GB/s of algorithm bandwidth is
  // 149 x 7/8 = 130 busbw, an all-reduce at 72 is 72 x 2 x 7/8 = 126, of
  // 196 (limulidae): 0.65. RoCE: 22.6 of 25 GB/s device to device (HIXL).
  for (const char* id : {"ascend-a2", "ascend-a2-podc"}) {
    CHECK(devices.at(id).levels.at(0).bus_efficiency == Approx(128.0 / 196).epsilon(0.01));
    CHECK(devices.at(id).levels.at(1).bus_efficiency == Approx(22.6 / 25).epsilon(0.01));
  }
  // A3's unified bus: a die reads another at 164-167 of 196 GB/s (Table 1).
  CHECK(devices.at("ascend-a3").levels.at(1).bus_efficiency == Approx(165.0 / 196).epsilon(0.01));
  // AMD and the reference's figures cite no bus bandwidth: the host's default.
  for (const char* id : {"amd-mi300x", "ascend-a2-nd", "ascend-a3-nd"})
    for (const TopologyLevel& l : devices.at(id).levels) CHECK(l.bus_efficiency == 0);
}

TEST_CASE("Half-bandwidth message sizes reproduce the all-reduce tables by size") {
  auto devices = shipped_devices();
  // t = 12 x 3 us + 1.75·(S + S0) / plateau, busbw = 1.75·S / t, against an
  // 8-GPU all-reduce by size (Azure/AI-benchmarking-guide ND H100 v5 and ND
  // A100 v4, reference/microbenchmarks.md §3a; nccl-tests sizes are binary).
  auto busbw = [](double bytes, double s0, double plateau) {
    return 1.75 * bytes / (12 * 3.0e-6 + 1.75 * (bytes + s0) / plateau);
  };
  constexpr double kMiB = 1 << 20;
  const double sizes[] = {16 * kMiB, 64 * kMiB, 256 * kMiB, 1024 * kMiB, 8192 * kMiB};
  // H100 (NVLS) 16 MB ... 8 GB, plateau 480 GB/s: S0 = 12 MB within 12 %.
  const double h100_table[] = {234.45e9, 361.78e9, 423.38e9, 466.35e9, 478.87e9};
  for (const char* id : {"nvidia-h100-sxm", "nvidia-h200"}) {
    INFO(id);
    const double s0 = devices.at(id).levels.at(0).half_bandwidth_bytes;
    CHECK(s0 == 12.0e6);
    for (size_t i = 0; i < 5; ++i)
      CHECK(busbw(sizes[i], s0, 480e9) == Approx(h100_table[i]).epsilon(0.12));
  }
  // A100 (Ring/Tree), plateau 231.6 GB/s: S0 = 16 MB.
  const double a100_table[] = {109.22e9, 166.63e9, 213.87e9, 228.10e9, 231.58e9};
  const double a100_s0 = devices.at("nvidia-a100-80g").levels.at(0).half_bandwidth_bytes;
  CHECK(a100_s0 == 16.0e6);
  for (size_t i = 0; i < 5; ++i)
    CHECK(busbw(sizes[i], a100_s0, 231.6e9) == Approx(a100_table[i]).epsilon(0.12));
  // B200: no table by size (§3b has 8 GiB only): Hopper's 12 MB is assumed.
  CHECK(devices.at("nvidia-b200").levels.at(0).half_bandwidth_bytes == 12.0e6);
  // InfiniBand: a 4-node all-reduce is at its plateau, about 94 GB/s busbw, by
  // 16 MiB (stas00/ml-engineering network/benchmarks/README.md, §3c): 0.
  for (const char* id : {"nvidia-a100-80g", "nvidia-h100-sxm", "nvidia-h200", "nvidia-b200"})
    CHECK(devices.at(id).levels.at(1).half_bandwidth_bytes == 0);
  // AMD and Ascend cite no table by size: every size at the plateau.
  for (const char* id :
       {"amd-mi300x", "ascend-a2", "ascend-a2-podc", "ascend-a3", "ascend-a2-nd", "ascend-a3-nd"})
    for (const TopologyLevel& l : devices.at(id).levels) CHECK(l.half_bandwidth_bytes == 0);
}

TEST_CASE("Ascend figures are the published ones") {
  auto devices = shipped_devices();
  // bf16: cube cores x 1.8 GHz x 16^3 MACs x 2 (Ascend910B2.ini; msmodeling's
  // 294.9 and 353.9 TFLOP/s); fp16: the marketed 313 and 376.
  const Device& a2 = devices.at("ascend-a2");
  CHECK(peak(a2, "bf16") == Approx(20 * 1.8e9 * 8192));  // 294.9e12, the 910B3
  CHECK(peak(a2, "fp16") == 313e12);
  const Device& podc = devices.at("ascend-a2-podc");
  CHECK(peak(podc, "bf16") == Approx(24 * 1.8e9 * 8192));  // 353.9e12
  CHECK(peak(podc, "fp16") == 376e12);
  // GEMMs: best 322.5 of 353.9 (mamf-finder, 910B2C) = 0.91 at large sizes.
  CHECK(peak_entry(podc, "bf16").matmul_efficiency.y.back() == Approx(0.91).epsilon(0.01));
  for (const Device* d : {&a2, &podc}) {
    CHECK(d->memory_bytes == 64 * GiB);
    CHECK(d->memory_bandwidth_bytes_per_s == 1.6e12);
    // HCCS: a full mesh of 8, 7 links of 28 GB/s (56 both ways) = 196 GB/s.
    REQUIRE(d->levels.size() == 2);
    CHECK(d->levels[0].link_kind == NDS_LINK_MESH);
    CHECK(d->levels[0].group_devices == 8);
    CHECK(d->levels[0].link_bandwidth_bytes_per_s == 28e9);
    CHECK(d->levels[0].device_bandwidth_bytes_per_s == 196e9);
    // One 200 GbE RoCE port per NPU: 25 GB/s.
    CHECK(d->levels[1].device_bandwidth_bytes_per_s == 25e9);
  }
  // A3: a 910C die (24 cube cores, the 910B's peaks), two a package on a
  // 270 GB/s link, 768 dies on the unified bus at 7 x 224 Gb/s = 196 GB/s,
  // 200 Gb/s RDMA a die beyond (CloudMatrix384 v2 §3).
  const Device& a3 = devices.at("ascend-a3");
  CHECK(peak(a3, "bf16") == Approx(24 * 1.8e9 * 8192));
  REQUIRE(a3.levels.size() == 3);
  CHECK(a3.levels[0].group_devices == 2);
  CHECK(a3.levels[0].device_bandwidth_bytes_per_s == 270e9);
  CHECK(a3.levels[1].group_devices == 768);
  CHECK(a3.levels[1].device_bandwidth_bytes_per_s == Approx(7 * 224e9 / 8));
  CHECK(a3.levels[2].device_bandwidth_bytes_per_s == 25e9);
  CHECK(a3.memory_bytes - a3.reserved_bytes == 58 * GiB);
}
