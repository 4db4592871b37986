// SPDX-License-Identifier: Apache-2.0
// device_catalog.hpp: every device the loaded hardware plugins describe,
// copied once, checked, and found by the names `-A` accepts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/hardware/device.hpp"
#include "core/plugin_host/registry.hpp"

namespace ndsearch {

class DeviceCatalog {
 public:
  // Copies the devices of every hardware plugin, in load order. A device id
  // seen before is skipped with W-DEVICE-DUPLICATE; a device that fails the
  // checks of device_problems is skipped with W-DEVICE-INVALID; a plugin whose
  // get_devices fails is skipped with W-DEVICE-PLUGIN. When `strict_devices`
  // is set (the user named a device file) these are errors instead
  // (E-DEVICE-FILE, exit 2).
  static DeviceCatalog load(const PluginRegistry& registry, bool strict_devices);

  const std::vector<Device>& devices() const noexcept { return devices_; }
  // Problems met while loading, as "[ID] message" lines (already logged as warnings).
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

  // The device a user names: an id, or one of the reference's names (A2, A3).
  // `asked_as` says where the name came from for the message ("the device
  // id"); empty: the device setting. Throws UserError E-DEVICE-UNKNOWN
  // listing the known ids.
  const Device& resolve(std::string_view name, std::string_view asked_as = {}) const;

 private:
  std::vector<Device> devices_;
  std::vector<std::string> warnings_;
};

}  // namespace ndsearch
