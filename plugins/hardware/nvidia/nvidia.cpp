// SPDX-License-Identifier: Apache-2.0
// nvidia.cpp: the `nvidia` hardware plugin: A100, H100, H200 and B200 (their
// figures and sources: plugins/common/devices/nvidia_*.cpp).
#include <ndsearch/sdk/hardware.hpp>

#include "plugins/common/devices/shipped_devices.hpp"

namespace {
class Nvidia final : public ndsearch::sdk::HardwarePlugin {
 public:
  std::vector<ndsearch::sdk::Device> describe() override {
    return ndsearch::plugins::nvidia_devices();
  }
};
}  // namespace

NDS_SDK_MODULE(Nvidia, "nvidia", "1.0.0", "NVIDIA A100 80GB, H100 SXM, H200, B200 (DGX nodes)")
