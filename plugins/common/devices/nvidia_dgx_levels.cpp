// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

std::vector<sdk::TopologyLevel> dgx_levels(const DgxLink& nvlink, const DgxLink& network) {
  auto level = [](uint32_t group_devices, const DgxLink& link, double latency_s) {
    sdk::TopologyLevel l;
    l.group_devices = group_devices;
    l.link_kind = NDS_LINK_SWITCH;
    l.link_bandwidth_bytes_per_s = link.link_bytes_per_s;
    l.device_bandwidth_bytes_per_s = link.device_bytes_per_s;
    l.latency_s = latency_s;
    l.name = link.name;
    l.bus_efficiency = link.bus_efficiency;
    l.all_reduce_speedup = link.all_reduce_speedup;
    l.half_bandwidth_bytes = link.half_bandwidth_bytes;
    return l;
  };
  return {level(8, nvlink, kNvlinkLatencyS), level(0, network, kInfinibandLatencyS)};
}

}  // namespace ndsearch::plugins::nvidia
