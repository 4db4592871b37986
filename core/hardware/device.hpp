// SPDX-License-Identifier: Apache-2.0
// device.hpp: the core's own copy of a device a hardware plugin describes,
// read field by field as far as the plugin's struct_size and elem_size allow.
#pragma once

#include <ndsearch/nds_hardware.h>
#include <ndsearch/sdk/device.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ndsearch {

using sdk::Curve;
using sdk::Device;  // `source`: the plugin id, or the file the plugin read
using sdk::DtypePeak;
using sdk::TopologyLevel;

// Copies `device`; `plugin_id` names the plugin for messages and is the
// device's source unless the plugin states one (a device file). A field the
// plugin's struct does not reach takes its documented default (nds_hardware.h).
// Throws UserError E-HARDWARE-TABLE when a required field is missing.
Device copy_device(const nds_device& device, std::string_view plugin_id);

// The device whose fitted trainer overheads a device shares, as the device
// states it (ABI 1.15 overheads_of; its own id where it states none):
// variants of one device that run the same software and differ in figures
// the model prices are fitted on their rows together, under the id they name.
inline const std::string& overheads_device(const Device& device) {
  return device.overheads_of.empty() ? device.id : device.overheads_of;
}

// What is wrong with a device's figures (empty when nothing): non-positive
// capacities, unknown dtype keys, curves out of order, levels that do not grow.
std::vector<std::string> device_problems(const Device& device);

}  // namespace ndsearch
