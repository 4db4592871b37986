// SPDX-License-Identifier: Apache-2.0
// hardware_text.hpp: the devices as `hardware` prints them: a table of every
// device (peak, memory, links, source), or one device's every figure and
// where it comes from.
#pragma once

#include <ostream>
#include <vector>

#include "core/hardware/device.hpp"

namespace ndsearch {

void write_hardware_text(std::ostream& out, const std::vector<Device>& devices);
void write_device_text(std::ostream& out, const Device& device);

}  // namespace ndsearch
