// SPDX-License-Identifier: Apache-2.0
// ascend.cpp: the `ascend` hardware plugin: A2 and A3 (their figures and
// sources: plugins/common/devices/ascend_*.cpp).
#include <ndsearch/sdk/hardware.hpp>

#include "plugins/common/devices/shipped_devices.hpp"

namespace {
class Ascend final : public ndsearch::sdk::HardwarePlugin {
 public:
  std::vector<ndsearch::sdk::Device> describe() override {
    return ndsearch::plugins::ascend_devices();
  }
};
}  // namespace

NDS_SDK_MODULE(Ascend, "ascend", "1.1.0",
               "Huawei Ascend A2 (910B: Atlas 800T A2, Atlas 900 A2 PoDc) and A3 (910C die)")
