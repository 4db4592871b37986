// SPDX-License-Identifier: Apache-2.0
// device_json.hpp: a device as the JSON of `ndsearch hardware` (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include "core/hardware/device.hpp"

namespace ndsearch {

// {id, name, vendor, peak_flops {dtype: FLOP/s}, matmul_efficiency {dtype:
// {gemm_flops, fraction}}, matmul_small_dim_efficiency {dtype: {smallest_dim,
// fraction}}, attention_forward_efficiency and attention_backward_efficiency
// {dtype: {seq_len, fraction}}, memory_bytes, memory_bandwidth_bytes_per_s,
// memory_bandwidth_efficiency, reserved_bytes, levels [{devices, kind,
// link_bandwidth_bytes_per_s, bandwidth_bytes_per_s, latency_s, name,
// bus_efficiency, all_reduce_speedup, half_bandwidth_bytes}], host_link_bytes_per_s,
// assumes, source, figure_sources, overheads_of (the device whose trainer fits
// it shares: its own id unless it states another)}.
// An efficiency of 0 and an absent curve mean "the host's default" (nds_hardware.h).
nlohmann::json device_to_json(const Device& device);

}  // namespace ndsearch
