// SPDX-License-Identifier: Apache-2.0
// device.hpp: the core's own copy of a device a hardware plugin describes,
// read field by field as far as the plugin's struct_size and elem_size allow.
#pragma once

#include <ndsearch/nds_hardware.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ndsearch {

struct Curve {
  std::vector<double> x;  // ascending
  std::vector<double> y;
};

struct DtypePeak {
  std::string dtype;
  double peak_flops_per_s = 0;
  Curve matmul_efficiency;  // empty: the plugin gave none
};

struct TopologyLevel {
  uint32_t group_devices = 0;  // cumulative; 0 = unbounded
  nds_link_kind link_kind = NDS_LINK_SWITCH;
  double link_bandwidth_bytes_per_s = 0;
  double device_bandwidth_bytes_per_s = 0;
  double latency_s = 0;
  std::string name;
};

struct Device {
  std::string id, name, vendor;
  uint64_t memory_bytes = 0;
  double memory_bandwidth_bytes_per_s = 0;
  uint64_t reserved_bytes = 0;
  double host_link_bytes_per_s = 0;
  std::vector<DtypePeak> peaks;
  std::vector<TopologyLevel> levels;
  std::string assumes;
  std::string source;  // the plugin id (or file) that described it
};

// Copies `device`; `source` names the plugin for messages. A field the
// plugin's struct does not reach takes its documented default (nds_hardware.h).
// Throws UserError E-HARDWARE-TABLE when a required field is missing.
Device copy_device(const nds_device& device, std::string_view source);

// What is wrong with a device's figures (empty when nothing): non-positive
// capacities, unknown dtype keys, curves out of order, levels that do not grow.
std::vector<std::string> device_problems(const Device& device);

}  // namespace ndsearch
