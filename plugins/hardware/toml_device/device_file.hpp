// SPDX-License-Identifier: Apache-2.0
// device_file.hpp: one accelerator described by a TOML file
// (docs/device-toml.md), optionally starting from a shipped device.
#pragma once

#include <ndsearch/sdk/device.hpp>

#include <filesystem>
#include <stdexcept>

namespace ndsearch::plugins::toml_device {

// A file that cannot be read as a device; the message names the file, the
// line where known, the key, the bad value and what was expected.
class DeviceFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads `file`. Throws DeviceFileError.
sdk::Device read_device_file(const std::filesystem::path& file);

}  // namespace ndsearch::plugins::toml_device
