// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/devices/shipped_devices.hpp"

#include "plugins/common/devices/ascend.hpp"
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins {

std::vector<sdk::Device> nvidia_devices() {
  return {nvidia::a100_80g(), nvidia::h100_sxm(), nvidia::h100_gt96(), nvidia::h200(),
          nvidia::b200()};
}
std::vector<sdk::Device> amd_devices() {
  return {amd::mi300x()};
}
std::vector<sdk::Device> ascend_devices() {
  return {ascend::a2(), ascend::a2_podc(), ascend::a3(), ascend::a2_nd(), ascend::a3_nd()};
}

namespace {
std::vector<sdk::Device> all_shipped() {
  std::vector<sdk::Device> all = nvidia_devices();
  for (auto* more : {&amd_devices, &ascend_devices})
    for (sdk::Device& d : more()) all.push_back(std::move(d));
  return all;
}
}  // namespace

std::optional<sdk::Device> shipped_device(std::string_view id) {
  for (sdk::Device& d : all_shipped())
    if (d.id == id) return std::move(d);
  return std::nullopt;
}

std::vector<std::string> shipped_device_ids() {
  std::vector<std::string> ids;
  for (const sdk::Device& d : all_shipped()) ids.push_back(d.id);
  return ids;
}

}  // namespace ndsearch::plugins
