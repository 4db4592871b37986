// SPDX-License-Identifier: Apache-2.0
// toml_device.cpp: the `toml-device` hardware plugin: devices described in
// TOML files, with no compiling (docs/device-toml.md). It reads every *.toml
// of the directories in the option "device-path" (NDS_DEVICE_PATH; a bad file
// there is a warning naming it) and the file of "device-file" (--device-file;
// a bad file there fails get_devices, which stops the run).
#include <ndsearch/sdk/hardware.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "plugins/hardware/toml_device/device_file.hpp"

namespace {

namespace fs = std::filesystem;
using ndsearch::plugins::toml_device::DeviceFileError;
using ndsearch::plugins::toml_device::read_device_file;

std::vector<fs::path> toml_files_in(const std::string& path_list) {
  std::vector<fs::path> files;
  size_t start = 0;
  while (start <= path_list.size()) {
    size_t end = path_list.find(':', start);
    if (end == std::string::npos) end = path_list.size();
    const fs::path dir = path_list.substr(start, end - start);
    start = end + 1;
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec)) {
      if (!dir.empty())
        ndsearch::sdk::host().log(NDS_LOG_WARN, "NDS_DEVICE_PATH names " + dir.string() +
                                                    ", which is not a directory; ignored");
      continue;
    }
    std::vector<fs::path> here;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".toml") here.push_back(entry.path());
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  return files;
}

class TomlDevice final : public ndsearch::sdk::HardwarePlugin {
 public:
  std::vector<ndsearch::sdk::Device> describe() override {
    std::vector<ndsearch::sdk::Device> devices;
    const ndsearch::sdk::Host& host = ndsearch::sdk::host();
    for (const fs::path& file : toml_files_in(host.option("device-path").value_or(""))) {
      try {
        devices.push_back(read_device_file(file));
      } catch (const DeviceFileError& e) {
        host.log(NDS_LOG_WARN,
                 std::string("skipped device file from NDS_DEVICE_PATH: ") + e.what());
      }
    }
    if (auto file = host.option("device-file")) {
      try {
        devices.push_back(read_device_file(*file));
      } catch (const DeviceFileError& e) {
        throw ndsearch::sdk::Error(NDS_INVALID_ARGUMENT,
                                   std::string("the device file (`device_file`) ") + e.what());
      }
    }
    return devices;
  }
};

}  // namespace

NDS_SDK_MODULE(TomlDevice, "toml-device", "1.0.0",
               "Devices described in TOML files: NDS_DEVICE_PATH, the device file (`device_file`)")
