// SPDX-License-Identifier: Apache-2.0
// amd.cpp: the `amd` hardware plugin: MI300X (its figures and sources:
// plugins/common/devices/amd_mi300x.cpp).
#include <ndsearch/sdk/hardware.hpp>

#include "plugins/common/devices/shipped_devices.hpp"

namespace {
class Amd final : public ndsearch::sdk::HardwarePlugin {
 public:
  std::vector<ndsearch::sdk::Device> describe() override {
    return ndsearch::plugins::amd_devices();
  }
};
}  // namespace

NDS_SDK_MODULE(Amd, "amd", "1.0.0", "AMD Instinct MI300X (8-GPU Infinity Fabric mesh)")
