// SPDX-License-Identifier: Apache-2.0
// device_toml.cpp: the TOML device reader (docs/device-toml.md), driven the
// way `--device-file FILE` drives it: the toml-device plugin is loaded with
// the option device-file naming the input, and the core's device catalogue
// copies and checks what it describes (strict, as for a file the user named).
#include <cstddef>
#include <cstdint>

#include "core/input/device_catalog.hpp"
#include "fuzz/support/expected_errors.hpp"
#include "fuzz/support/scratch_file.hpp"
#include "fuzz/support/shipped_plugin.hpp"

namespace {

constexpr const char* kInputName = "device.toml";
const ndsearch::PluginRegistry* registry = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The option is fixed before the plugin's init, so the file name is too;
  // each input replaces the file's contents.
  const std::string device_file = (ndsearch::fuzz::scratch_dir() / kInputName).string();
  registry = &ndsearch::fuzz::shipped_plugin(NDS_FUZZ_PLUGIN_DIR, "toml-device",
                                             {{"device-file", device_file}});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ndsearch::fuzz::write_scratch_file(kInputName, data, size);
  ndsearch::fuzz::expect_only_user_errors([] {
    const auto catalog = ndsearch::DeviceCatalog::load(*registry, /*strict_devices=*/true);
    for (const auto& device : catalog.devices()) (void)catalog.resolve(device.id);
  });
  return 0;
}
