// SPDX-License-Identifier: Apache-2.0
// device.hpp: a device as C++ values, the mirror of nds_hardware.h's tables.
// Plugins describe devices with it (hardware.hpp turns it into the C tables);
// the host copies the C tables back into it.
#ifndef NDSEARCH_SDK_DEVICE_HPP_INCLUDED
#define NDSEARCH_SDK_DEVICE_HPP_INCLUDED

#include <ndsearch/nds_hardware.h>

#include <cstdint>  // uint32_t, uint64_t
#include <string>
#include <vector>

namespace ndsearch::sdk {

struct Curve {
  std::vector<double> x;  // ascending
  std::vector<double> y;
};

struct DtypePeak {
  std::string dtype;  // "fp32", "tf32", "bf16", "fp16", "fp8"
  double peak_flops_per_s = 0;
  Curve matmul_efficiency;  // x: FLOPs of one GEMM; y: fraction of peak
  // ABI 1.1; an empty curve is "absent" (nds_hardware.h says what the host
  // assumes). The `{}` keeps `{dtype, peak, curve}` initializers warning-free.
  Curve matmul_small_dim_efficiency{};   // x: min(m, n); y: multiplier of matmul_efficiency
  Curve attention_forward_efficiency{};  // x: sequence length (tokens); y: fraction of peak, causal
  Curve attention_backward_efficiency{};  // the same for the backward
};

struct TopologyLevel {
  uint32_t group_devices = 0;  // cumulative; 0 = unbounded
  nds_link_kind link_kind = NDS_LINK_SWITCH;
  double link_bandwidth_bytes_per_s = 0;
  double device_bandwidth_bytes_per_s = 0;
  double latency_s = 0;
  std::string name;
  // ABI 1.1; 0 = absent (the host's default).
  double bus_efficiency = 0;        // fraction of device_bandwidth_bytes_per_s collectives reach
  double all_reduce_speedup = 0;    // NVLS/SHARP all-reduce over ring; 0 or 1 = none
  double half_bandwidth_bytes = 0;  // message size at half the bus bandwidth; 0 = none
};

struct Device {
  std::string id, name, vendor;
  uint64_t memory_bytes = 0;
  double memory_bandwidth_bytes_per_s = 0;
  uint64_t reserved_bytes = 0;
  double host_link_bytes_per_s = 0;
  std::vector<DtypePeak> peaks;
  std::vector<TopologyLevel> levels;
  std::string assumes;
  std::string source;                      // a device file, say; empty: the plugin's id
  double memory_bandwidth_efficiency = 0;  // ABI 1.1: STREAM triad fraction; 0 = absent
  // ABI 1.14: where each figure comes from, a line per figure or group of
  // figures ("peak bf16: cores x clock x ... (source)"); empty = not stated.
  std::string figure_sources;
  // ABI 1.15: the device whose fitted trainer overheads this one shares;
  // empty = its own.
  std::string overheads_of;
};

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_DEVICE_HPP_INCLUDED
