// SPDX-License-Identifier: Apache-2.0
#include "core/hardware/device_json.hpp"

namespace ndsearch {

nlohmann::json device_to_json(const Device& d) {
  nlohmann::json peaks = nlohmann::json::object();
  nlohmann::json curves = nlohmann::json::object();
  for (const DtypePeak& p : d.peaks) {
    peaks[p.dtype] = p.peak_flops_per_s;
    if (!p.matmul_efficiency.x.empty())
      curves[p.dtype] = {{"gemm_flops", p.matmul_efficiency.x}, {"fraction", p.matmul_efficiency.y}};
  }
  nlohmann::json levels = nlohmann::json::array();
  for (const TopologyLevel& l : d.levels) {
    levels.push_back({{"devices", l.group_devices},
                      {"kind", l.link_kind == NDS_LINK_MESH ? "mesh" : "switch"},
                      {"link_bandwidth_bytes_per_s", l.link_bandwidth_bytes_per_s},
                      {"bandwidth_bytes_per_s", l.device_bandwidth_bytes_per_s},
                      {"latency_s", l.latency_s},
                      {"name", l.name}});
  }
  return {{"id", d.id},
          {"name", d.name},
          {"vendor", d.vendor},
          {"peak_flops", peaks},
          {"matmul_efficiency", curves},
          {"memory_bytes", d.memory_bytes},
          {"memory_bandwidth_bytes_per_s", d.memory_bandwidth_bytes_per_s},
          {"reserved_bytes", d.reserved_bytes},
          {"levels", levels},
          {"host_link_bytes_per_s", d.host_link_bytes_per_s},
          {"assumes", d.assumes},
          {"source", d.source}};
}

}  // namespace ndsearch
