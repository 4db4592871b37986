// SPDX-License-Identifier: Apache-2.0
// shipped_devices.hpp: every device the shipped hardware plugins describe, by
// vendor plugin and by id, so that a plugin such as toml-device can start a
// description from one of them (`base = "nvidia-a100-80g"`).
#pragma once

#include <ndsearch/sdk/device.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ndsearch::plugins {

namespace amd {
sdk::Device mi300x();
}

// The devices of the `nvidia`, `amd` or `ascend` plugin, in a fixed order.
std::vector<sdk::Device> nvidia_devices();
std::vector<sdk::Device> amd_devices();
std::vector<sdk::Device> ascend_devices();

// Every shipped device, by id; nullopt for an unknown id.
std::optional<sdk::Device> shipped_device(std::string_view id);
std::vector<std::string> shipped_device_ids();

}  // namespace ndsearch::plugins
