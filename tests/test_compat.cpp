// SPDX-License-Identifier: Apache-2.0
// test_compat.cpp: one hardware plugin built against the current headers, a
// synthetic older minor (each struct without its last field) and a newer minor
// (one more field each): the host reads all three, by struct_size and
// elem_size, and an older plugin's missing fields take their defaults.
#include <catch2/catch.hpp>

#include "core/hardware/device.hpp"
#include "core/plugins/registry.hpp"
#include "tests/fixtures_paths.hpp"

using namespace ndsearch;

namespace {
Device the_device(const std::string& fixture_name, uint32_t* abi_minor = nullptr) {
  auto plugin = load_plugin(test::fixture(fixture_name), std::make_shared<const PluginOptions>());
  REQUIRE(plugin->interfaces.hardware != nullptr);
  if (abi_minor) *abi_minor = plugin->abi_minor;
  const nds_device* const* devices = nullptr;
  size_t count = 0;
  REQUIRE(plugin->interfaces.hardware->get_devices(&devices, &count) == nullptr);
  REQUIRE(count == 1);
  return copy_device(*devices[0], plugin->id);
}

void check_common_figures(const Device& d) {
  CHECK(d.id == "compat-device");
  CHECK(d.memory_bytes == (uint64_t{64} << 30));
  CHECK(d.memory_bandwidth_bytes_per_s == 2.0e12);
  CHECK(d.reserved_bytes == (uint64_t{1} << 30));
  REQUIRE(d.peaks.size() == 2);
  CHECK(d.peaks[0].dtype == "bf16");
  CHECK(d.peaks[0].peak_flops_per_s == 500.0e12);
  CHECK(d.peaks[1].dtype == "fp32");  // read at peak_elem_size, whatever the plugin's size
  CHECK(d.peaks[1].peak_flops_per_s == 60.0e12);
  REQUIRE(d.levels.size() == 2);
  CHECK(d.levels[0].group_devices == 8);
  CHECK(d.levels[0].link_kind == NDS_LINK_MESH);
  CHECK(d.levels[1].group_devices == 0);
  CHECK(d.levels[1].latency_s == 8.0e-6);
}
}  // namespace

TEST_CASE("A plugin built against the current headers reads in full") {
  uint32_t minor = 99;
  Device d = the_device("compat_current", &minor);
  CHECK(minor == NDS_ABI_MINOR);
  check_common_figures(d);
  CHECK(d.assumes == "8 devices in a mesh per node");
  CHECK(d.source == "compat-current");  // a NULL source reads as the plugin's id
  CHECK(d.levels[0].name == "mesh");
  CHECK(d.peaks[0].matmul_efficiency.x == std::vector<double>{1.0e9, 1.0e12});
}

TEST_CASE("A plugin built before the last field of each struct loads with defaults") {
  Device d = the_device("compat_older");
  check_common_figures(d);
  CHECK(d.source == "compat-older");                 // nds_device.source absent: the plugin
  CHECK(d.levels[0].name.empty());                   // nds_topology_level.name absent
  CHECK(d.peaks[0].matmul_efficiency.x.empty());     // nds_dtype_peak.matmul_efficiency absent
}

TEST_CASE("A plugin built for a newer minor loads and the fields it added are ignored") {
  uint32_t minor = 0;
  Device d = the_device("compat_newer", &minor);
  CHECK(minor == NDS_ABI_MINOR + 1);
  check_common_figures(d);
  CHECK(d.levels[1].name == "network");
  CHECK(d.peaks[0].matmul_efficiency.y == std::vector<double>{0.25, 0.75});
}
