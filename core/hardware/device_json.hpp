// SPDX-License-Identifier: Apache-2.0
// device_json.hpp: a device as the JSON of `ndsearch hardware` (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include "core/hardware/device.hpp"

namespace ndsearch {

// {id, name, vendor, peak_flops {dtype: FLOP/s}, matmul_efficiency {dtype:
// {gemm_flops, fraction}}, memory_bytes, memory_bandwidth_bytes_per_s,
// reserved_bytes, levels [{devices, kind, link_bandwidth_bytes_per_s,
// bandwidth_bytes_per_s, latency_s, name}], host_link_bytes_per_s, assumes, source}
nlohmann::json device_to_json(const Device& device);

}  // namespace ndsearch
