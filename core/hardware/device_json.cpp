// SPDX-License-Identifier: Apache-2.0
#include "core/hardware/device_json.hpp"

namespace ndsearch {
namespace {

// dtype → {x_key: [...], fraction: [...]} for each peak that states the curve `member`.
nlohmann::json curves_json(const Device& d, Curve DtypePeak::*member, const char* x_key) {
  nlohmann::json curves = nlohmann::json::object();
  for (const DtypePeak& p : d.peaks) {
    const Curve& c = p.*member;
    if (!c.x.empty()) curves[p.dtype] = {{x_key, c.x}, {"fraction", c.y}};
  }
  return curves;
}

}  // namespace

nlohmann::json device_to_json(const Device& d) {
  nlohmann::json peaks = nlohmann::json::object();
  for (const DtypePeak& p : d.peaks) peaks[p.dtype] = p.peak_flops_per_s;
  nlohmann::json levels = nlohmann::json::array();
  for (const TopologyLevel& l : d.levels) {
    levels.push_back({{"devices", l.group_devices},
                      {"kind", l.link_kind == NDS_LINK_MESH ? "mesh" : "switch"},
                      {"link_bandwidth_bytes_per_s", l.link_bandwidth_bytes_per_s},
                      {"bandwidth_bytes_per_s", l.device_bandwidth_bytes_per_s},
                      {"latency_s", l.latency_s},
                      {"name", l.name},
                      {"bus_efficiency", l.bus_efficiency},
                      {"all_reduce_speedup", l.all_reduce_speedup},
                      {"half_bandwidth_bytes", l.half_bandwidth_bytes}});
  }
  return {{"id", d.id},
          {"name", d.name},
          {"vendor", d.vendor},
          {"peak_flops", peaks},
          {"matmul_efficiency", curves_json(d, &DtypePeak::matmul_efficiency, "gemm_flops")},
          {"matmul_small_dim_efficiency",
           curves_json(d, &DtypePeak::matmul_small_dim_efficiency, "smallest_dim")},
          {"attention_forward_efficiency",
           curves_json(d, &DtypePeak::attention_forward_efficiency, "seq_len")},
          {"attention_backward_efficiency",
           curves_json(d, &DtypePeak::attention_backward_efficiency, "seq_len")},
          {"memory_bytes", d.memory_bytes},
          {"memory_bandwidth_bytes_per_s", d.memory_bandwidth_bytes_per_s},
          {"memory_bandwidth_efficiency", d.memory_bandwidth_efficiency},
          {"figure_sources", d.figure_sources},
          {"overheads_of", overheads_device(d)},
          {"reserved_bytes", d.reserved_bytes},
          {"levels", levels},
          {"host_link_bytes_per_s", d.host_link_bytes_per_s},
          {"assumes", d.assumes},
          {"source", d.source}};
}

}  // namespace ndsearch
