// SPDX-License-Identifier: Apache-2.0
// test_compat.cpp: one hardware plugin built against the current headers, a
// synthetic older minor (each struct without its last field), a newer minor
// (one more field each) and the released 1.0, 1.1 and 1.2 headers
// (tests/compat/abi-1.0/, abi-1.1/, abi-1.2/): the host reads all six, by
// struct_size and elem_size, and an older plugin's missing fields take their
// defaults.
#include <catch2/catch.hpp>

#include "core/hardware/device.hpp"
#include "core/plugin_host/registry.hpp"
#include "tests/fixtures_paths.hpp"

using namespace ndsearch;

namespace {
Device the_device(const std::string& fixture_name, uint32_t* abi_minor = nullptr,
                  bool* options_per_call = nullptr) {
  auto plugin = load_plugin(test::fixture(fixture_name), std::make_shared<const PluginOptions>());
  REQUIRE(plugin->interfaces.hardware != nullptr);
  if (abi_minor) *abi_minor = plugin->abi_minor;
  if (options_per_call) *options_per_call = plugin->options_per_call;
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

// What compat_hardware.c sets in the fields of 1.0 after which 1.1 appended.
void check_1_0_trailing_fields(const Device& d) {
  CHECK(d.assumes == "8 devices in a mesh per node");
  CHECK(d.levels[0].name == "mesh");
  CHECK(d.levels[1].name == "network");
  CHECK(d.peaks[0].matmul_efficiency.x == std::vector<double>{1.0e9, 1.0e12});
  CHECK(d.peaks[0].matmul_efficiency.y == std::vector<double>{0.25, 0.75});
}

// What it sets in the fields 1.1 appended, except the last of each struct.
void check_1_1_fields_but_last(const Device& d) {
  CHECK(d.peaks[0].matmul_small_dim_efficiency.x == std::vector<double>{64, 1024});
  CHECK(d.peaks[0].matmul_small_dim_efficiency.y == std::vector<double>{0.5, 1.0});
  CHECK(d.peaks[0].attention_forward_efficiency.y == std::vector<double>{0.4, 0.6});
  CHECK(d.levels[0].bus_efficiency == 0.75);
  CHECK(d.levels[0].all_reduce_speedup == 1.25);
  CHECK(d.memory_bandwidth_efficiency == 0.9);  // the last of nds_device until 1.14
}

// What it sets in the last field of each struct 1.1 grew.
void check_1_1_last_fields(const Device& d) {
  CHECK(d.peaks[0].attention_backward_efficiency.x == std::vector<double>{1024, 8192});
  CHECK(d.levels[0].half_bandwidth_bytes == 4.0e6);
}
}  // namespace

TEST_CASE("A plugin built against the current headers reads in full") {
  uint32_t minor = 99;
  bool options_per_call = false;
  Device d = the_device("compat_current", &minor, &options_per_call);
  CHECK(minor == NDS_ABI_MINOR);
  CHECK(options_per_call);  // nds_module.flags, the last field of 1.2, is read
  check_common_figures(d);
  check_1_0_trailing_fields(d);
  CHECK(d.source == "compat-current");  // a NULL source reads as the plugin's id
  check_1_1_fields_but_last(d);
  check_1_1_last_fields(d);
  CHECK(d.figure_sources == "peak bf16: the compatibility fixture's");  // 1.14
  CHECK(d.overheads_of == "nvidia-h100-sxm");    // 1.15, the last of nds_device
  CHECK(d.levels[1].bus_efficiency == 0);        // not set: the host's default
  CHECK(d.levels[1].half_bandwidth_bytes == 0);  // not set: every size at the plateau
}

TEST_CASE("A plugin built before the last field of each struct loads with defaults") {
  bool options_per_call = true;
  Device d = the_device("compat_older", nullptr, &options_per_call);
  CHECK_FALSE(options_per_call);  // the last of nds_module: absent, no flags
  check_common_figures(d);
  check_1_0_trailing_fields(d);
  check_1_1_fields_but_last(d);
  CHECK(d.peaks[0].attention_backward_efficiency.x.empty());  // the last of nds_dtype_peak: absent
  CHECK(d.levels[0].half_bandwidth_bytes == 0);               // the last of nds_topology_level
  CHECK(d.figure_sources == "peak bf16: the compatibility fixture's");  // 1.14
  CHECK(d.overheads_of.empty());                                        // the last of nds_device
}

TEST_CASE(
    "A plugin built against the released 1.0 headers loads, and 1.1's fields take their defaults") {
  uint32_t minor = 99;
  Device d = the_device("compat_1_0", &minor);
  CHECK(minor == 0);
  check_common_figures(d);
  check_1_0_trailing_fields(d);
  CHECK(d.source == "compat-1-0");
  // Its structs end where 1.0's did; every field 1.1 appended reads as absent.
  for (const DtypePeak& p : d.peaks) {
    CHECK(p.matmul_small_dim_efficiency.x.empty());   // no curve: no small-dimension penalty
    CHECK(p.attention_forward_efficiency.x.empty());  // no curve: the host's default
    CHECK(p.attention_backward_efficiency.x.empty());
  }
  for (const TopologyLevel& l : d.levels) {
    CHECK(l.bus_efficiency == 0);        // the host's default, 0.8
    CHECK(l.all_reduce_speedup == 0);    // no in-network reduction
    CHECK(l.half_bandwidth_bytes == 0);  // every size at the plateau
  }
  CHECK(d.memory_bandwidth_efficiency == 0);  // the host's default, 0.85
  CHECK(device_problems(d).empty());
}

TEST_CASE(
    "A plugin built against the released 1.1 headers loads, and 1.2's module flags read as none") {
  uint32_t minor = 99;
  bool options_per_call = true;
  Device d = the_device("compat_1_1", &minor, &options_per_call);
  CHECK(minor == 1);
  CHECK_FALSE(options_per_call);  // its nds_module ends at description
  check_common_figures(d);
  check_1_0_trailing_fields(d);
  check_1_1_fields_but_last(d);
  CHECK(d.source == "compat-1-1");
  check_1_1_last_fields(d);  // every field of 1.1 is read, its last ones included
}

TEST_CASE(
    "A plugin built against the released 1.2 headers loads, reads in full, and offers no "
    "recompute") {
  uint32_t minor = 99;
  bool options_per_call = false;
  Device d = the_device("compat_1_2", &minor, &options_per_call);
  CHECK(minor == 2);
  CHECK(options_per_call);  // nds_module.flags, the last field of 1.2, is read
  check_common_figures(d);
  check_1_0_trailing_fields(d);
  check_1_1_fields_but_last(d);
  CHECK(d.source == "compat-1-2");
  check_1_1_last_fields(d);
  // What 1.3 appended reads as absent: the interface "nds.recompute/1" is not
  // offered (1.2 has no such id), and the module table ends where 1.2's does.
  auto plugin = load_plugin(test::fixture("compat_1_2"), std::make_shared<const PluginOptions>());
  CHECK(plugin->interfaces.recompute == nullptr);
  CHECK(plugin->interfaces.ids() == std::vector<std::string>{NDS_HARDWARE_INTERFACE_ID});
  CHECK(plugin->module->struct_size == offsetof(nds_module, flags) + sizeof(uint64_t));
}

namespace {

// A plugin of a released minor whose module and device tables are the
// current ones (later minors appended elsewhere): it loads, reads every
// field, offers its one interface and a whole module table.
void check_released_minor_in_full(const char* fixture, uint32_t released, const char* source) {
  uint32_t minor = 99;
  bool options_per_call = false;
  Device d = the_device(fixture, &minor, &options_per_call);
  CHECK(minor == released);
  CHECK(options_per_call);
  check_common_figures(d);
  check_1_0_trailing_fields(d);
  check_1_1_fields_but_last(d);
  CHECK(d.source == source);
  check_1_1_last_fields(d);
  auto plugin = load_plugin(test::fixture(fixture), std::make_shared<const PluginOptions>());
  CHECK(plugin->interfaces.ids() == std::vector<std::string>{NDS_HARDWARE_INTERFACE_ID});
  CHECK(plugin->module->struct_size == sizeof(nds_module));
}

}  // namespace

TEST_CASE("A plugin built against the released 1.3 headers loads and reads in full") {
  // 1.4 appended schedule constants only: a 1.3 plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_3", 3, "compat-1-3");
}

TEST_CASE("A plugin built against the released 1.4 headers loads and reads in full") {
  // 1.5 appended to the parser interface only: a 1.4 hardware plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_4", 4, "compat-1-4");
}

TEST_CASE("A plugin built against the released 1.5 headers loads and reads in full") {
  // 1.6 appended to the model's structs only: a 1.5 hardware plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_5", 5, "compat-1-5");
}

TEST_CASE("A plugin built against the released 1.6 headers loads and reads in full") {
  // 1.7 appended to the parser's applied strategy, the training settings and
  // the capability bits: a 1.6 hardware plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_6", 6, "compat-1-6");
}

TEST_CASE("A plugin built against the released 1.7 headers loads and reads in full") {
  // 1.8 appended to the training settings and the recompute op bits only: a
  // 1.7 hardware plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_7", 7, "compat-1-7");
}

TEST_CASE("A plugin built against the released 1.8 headers loads and reads in full") {
  // 1.9 appended to the training settings and the recompute op bits only: a
  // 1.8 hardware plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_8", 8, "compat-1-8");
}

TEST_CASE("A plugin built against the released 1.9 headers loads and reads in full") {
  // 1.10 appended to the compile input only: a 1.9 hardware plugin's tables
  // are the current ones.
  check_released_minor_in_full("compat_1_9", 9, "compat-1-9");
}

TEST_CASE("A plugin built against the released 1.10 headers loads and reads in full") {
  // 1.11 appended capability bits and a field of the applied strategy only:
  // a 1.10 hardware plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_10", 10, "compat-1-10");
}

TEST_CASE("A plugin built against the released 1.11 headers loads and reads in full") {
  // 1.12 appended a recompute op bit and an FSDP holding value only: a 1.11
  // hardware plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_11", 11, "compat-1-11");
}

TEST_CASE("A plugin built against the released 1.12 headers loads and reads in full") {
  // 1.13 appended MoE fields to the layer block and the training settings,
  // an overlap bit and the dispatcher enum only: a 1.12 hardware plugin's
  // tables are the current ones.
  check_released_minor_in_full("compat_1_12", 12, "compat-1-12");
}

TEST_CASE("A plugin built against the released 1.13 headers loads, and states no figure sources") {
  // 1.14 appended figure_sources to the device: a 1.13 plugin's device ends
  // before it, which reads as none stated.
  check_released_minor_in_full("compat_1_13", 13, "compat-1-13");
  CHECK(the_device("compat_1_13").figure_sources.empty());
}

TEST_CASE("A plugin built for a newer minor loads and the fields it added are ignored") {
  uint32_t minor = 0;
  Device d = the_device("compat_newer", &minor);
  CHECK(minor == NDS_ABI_MINOR + 1);
  check_common_figures(d);
  check_1_0_trailing_fields(d);
  check_1_1_fields_but_last(d);
  CHECK(d.figure_sources == "peak bf16: the compatibility fixture's");
  CHECK(d.overheads_of == "nvidia-h100-sxm");
}

TEST_CASE(
    "A plugin built against the released 1.14 headers loads, and shares no other device's fits") {
  // 1.15 appended overheads_of to the device: a 1.14 plugin's device ends
  // before it, which reads as its own fits; its figure sources are read.
  check_released_minor_in_full("compat_1_14", 14, "compat-1-14");
  const Device d = the_device("compat_1_14");
  CHECK(d.figure_sources == "peak bf16: the compatibility fixture's");
  CHECK(d.overheads_of.empty());
}

TEST_CASE("A plugin built against the released 1.15 headers loads and reads in full") {
  // 1.16 appended CP fields to the training settings only: a 1.15 hardware
  // plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_15", 15, "compat-1-15");
  const Device d = the_device("compat_1_15");
  CHECK(d.figure_sources == "peak bf16: the compatibility fixture's");
  CHECK(d.overheads_of == "nvidia-h100-sxm");
}

TEST_CASE("A plugin built against the released 1.16 headers loads and reads in full") {
  // 1.17 appended an overlap bit of the training settings only: a 1.16
  // hardware plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_16", 16, "compat-1-16");
  const Device d = the_device("compat_1_16");
  CHECK(d.figure_sources == "peak bf16: the compatibility fixture's");
  CHECK(d.overheads_of == "nvidia-h100-sxm");
}

TEST_CASE("A plugin built against the released 1.17 headers loads and reads in full") {
  // 1.18 appended the elementwise kernels to the training settings only: a
  // 1.17 hardware plugin's tables are the current ones.
  check_released_minor_in_full("compat_1_17", 17, "compat-1-17");
  const Device d = the_device("compat_1_17");
  CHECK(d.figure_sources == "peak bf16: the compatibility fixture's");
  CHECK(d.overheads_of == "nvidia-h100-sxm");
}
