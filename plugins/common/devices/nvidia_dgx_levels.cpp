// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

std::vector<sdk::TopologyLevel> dgx_levels(double nvlink_link_bytes_per_s,
                                           double nvlink_device_bytes_per_s,
                                           const char* nvlink_name, double nic_bytes_per_s,
                                           const char* nic_name) {
  return {
      {8, NDS_LINK_SWITCH, nvlink_link_bytes_per_s, nvlink_device_bytes_per_s, kNvlinkLatencyS,
       nvlink_name},
      {0, NDS_LINK_SWITCH, nic_bytes_per_s, nic_bytes_per_s, kInfinibandLatencyS, nic_name},
  };
}

}  // namespace ndsearch::plugins::nvidia
