// SPDX-License-Identifier: Apache-2.0
// test_shipped_hardware.cpp: the shipped hardware plugins load and state the
// vendors' published dense figures (the sources are cited in each plugin).
#include <catch2/catch.hpp>

#include <map>

#include "core/hardware/device.hpp"
#include "core/plugins/registry.hpp"

using namespace ndsearch;

namespace {
constexpr uint64_t GiB = uint64_t{1} << 30;

std::map<std::string, Device> shipped_devices() {
  PluginSearch search;
  search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
  static PluginRegistry registry = PluginRegistry::load(search);
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

TEST_CASE("The seven shipped devices load and pass the device checks") {
  auto devices = shipped_devices();
  std::vector<std::string> ids;
  for (const auto& [id, d] : devices) {
    ids.push_back(id);
    INFO(id);
    CHECK(device_problems(d).empty());
    CHECK_FALSE(d.assumes.empty());
  }
  CHECK(ids == std::vector<std::string>{"amd-mi300x", "ascend-a2", "ascend-a3", "nvidia-a100-80g",
                                        "nvidia-b200", "nvidia-h100-sxm", "nvidia-h200"});
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

TEST_CASE("Ascend levels are the reference's: A2 8 per node and A3 16 per node then 24 nodes") {
  auto devices = shipped_devices();
  const Device& a2 = devices.at("ascend-a2");
  REQUIRE(a2.levels.size() == 2);
  CHECK(a2.levels[0].group_devices == 8);
  CHECK(a2.levels[1].group_devices == 0);
  const Device& a3 = devices.at("ascend-a3");
  REQUIRE(a3.levels.size() == 3);
  CHECK(a3.levels[0].group_devices == 16);
  CHECK(a3.levels[1].group_devices == 16 * 24);
  CHECK(a3.levels[2].group_devices == 0);
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
