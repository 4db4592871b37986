// SPDX-License-Identifier: Apache-2.0
// nvidia.cpp: the `nvidia` hardware plugin: A100, H100, H200 and B200.
#include "plugins/hardware/nvidia/devices.hpp"

namespace {

class Nvidia final : public ndsearch::sdk::HardwarePlugin {
 public:
  std::vector<ndsearch::sdk::Device> describe() override {
    using namespace ndsearch::plugins::nvidia;
    return {a100_80g(), h100_sxm(), h200(), b200()};
  }
};

}  // namespace

NDS_SDK_MODULE(Nvidia, "nvidia", "1.0.0", "NVIDIA A100 80GB, H100 SXM, H200, B200 (DGX nodes)")
