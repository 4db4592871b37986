// SPDX-License-Identifier: Apache-2.0
#include "core/output/hardware_text.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>

#include <algorithm>
#include <sstream>
#include <string>

#include "core/hardware/device.hpp"

namespace ndsearch {
namespace {

constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB

std::string group_text(uint32_t devices) {
  return devices == 0 ? "all" : std::to_string(devices);
}

// "8 switch 450 GB/s, all switch 50 GB/s": devices joined, kind, per-device bandwidth.
std::string levels_text(const Device& d) {
  std::string text;
  for (const TopologyLevel& l : d.levels) {
    text += fmt::format("{}{} {} {:g} GB/s", text.empty() ? "" : ", ", group_text(l.group_devices),
                        l.link_kind == NDS_LINK_MESH ? "mesh" : "switch",
                        l.device_bandwidth_bytes_per_s / 1e9);
  }
  return text;
}

double peak(const Device& d, const char* dtype) {
  for (const DtypePeak& p : d.peaks)
    if (p.dtype == dtype) return p.peak_flops_per_s;
  return 0;
}

// ", <what> 0.16 at 64 <unit> up to 1.00 at 1024 <unit>", or "" for an absent curve.
std::string curve_text(const Curve& c, const char* what, const char* unit) {
  if (c.x.empty()) return "";
  return fmt::format(", {} {:.2f} at {:g} {} up to {:.2f} at {:g} {}", what, c.y.front(),
                     c.x.front(), unit, c.y.back(), c.x.back(), unit);
}

// "0.887", or "default" for an efficiency of 0 (the host's default applies).
std::string efficiency_text(double efficiency) {
  return efficiency > 0 ? fmt::format("{:.3g}", efficiency) : std::string("default");
}

}  // namespace

void write_hardware_text(std::ostream& out, const std::vector<Device>& devices) {
  if (devices.empty()) {
    out << "No devices: no hardware plugin is loaded (see `ndsearch plugins list`).\n";
    return;
  }
  // Columns as wide as their longest entry, so that no name or level list
  // pushes the rest of its row out of line.
  size_t id_width = 2, name_width = 4, levels_width = 40;
  for (const Device& d : devices) {
    id_width = std::max(id_width, d.id.size());
    name_width = std::max(name_width, d.name.size());
    levels_width = std::max(levels_width, levels_text(d).size());
  }
  out << fmt::format("{:<{}} {:<{}} {:>12} {:>8} {:>9}  {:<{}} {}\n", "ID", id_width, "NAME",
                     name_width, "BF16 TFLOP/s", "HBM GiB", "HBM TB/s",
                     "LEVELS (devices, kind, GB/s per device)", levels_width, "SOURCE");
  for (const Device& d : devices) {
    out << fmt::format(
        "{:<{}} {:<{}} {:>12.1f} {:>8.1f} {:>9.2f}  {:<{}} {}\n", d.id, id_width, d.name,
        name_width, peak(d, "bf16") / 1e12, static_cast<double>(d.memory_bytes) / kGiB,
        d.memory_bandwidth_bytes_per_s / 1e12, levels_text(d), levels_width, d.source);
  }
}

void write_device_text(std::ostream& out, const Device& d) {
  out << fmt::format("{} ({}, {})\n", d.name, d.id, d.vendor);
  out << fmt::format(
      "  memory          {:.1f} GiB HBM at {:.2f} TB/s (achieved fraction: {}); {:.1f} GiB "
      "reserved by the runtime\n",
      static_cast<double>(d.memory_bytes) / kGiB, d.memory_bandwidth_bytes_per_s / 1e12,
      efficiency_text(d.memory_bandwidth_efficiency), static_cast<double>(d.reserved_bytes) / kGiB);
  for (const DtypePeak& p : d.peaks) {
    const Curve& c = p.matmul_efficiency;
    out << fmt::format(
        "  peak {:<10} {:.1f} TFLOP/s dense{}{}{}{}\n", p.dtype, p.peak_flops_per_s / 1e12,
        c.x.empty() ? ", no GEMM efficiency curve (the default applies)"
                    : fmt::format(", GEMM efficiency {:.2f} at {:.0e} FLOPs up to {:.2f} at {:.0e}",
                                  c.y.front(), c.x.front(), c.y.back(), c.x.back()),
        curve_text(p.matmul_small_dim_efficiency, "thin GEMMs x", "min dim"),
        curve_text(p.attention_forward_efficiency, "attention forward", "tokens"),
        curve_text(p.attention_backward_efficiency, "backward", "tokens"));
  }
  for (size_t i = 0; i < d.levels.size(); ++i) {
    const TopologyLevel& l = d.levels[i];
    out << fmt::format(
        "  level {}         {} devices, {}: {:g} GB/s per link, {:g} GB/s per device, {:g} us, "
        "bus efficiency {}{}{}; {}\n",
        i, group_text(l.group_devices), l.link_kind == NDS_LINK_MESH ? "mesh" : "switch",
        l.link_bandwidth_bytes_per_s / 1e9, l.device_bandwidth_bytes_per_s / 1e9, l.latency_s * 1e6,
        efficiency_text(l.bus_efficiency),
        l.all_reduce_speedup > 1
            ? fmt::format(", in-network all-reduce x{:g}", l.all_reduce_speedup)
            : std::string(),
        l.half_bandwidth_bytes > 0
            ? fmt::format(", half bandwidth at {:g} MB", l.half_bandwidth_bytes / 1e6)
            : std::string(),
        l.name);
  }
  out << fmt::format("  host link       {:g} GB/s per direction\n", d.host_link_bytes_per_s / 1e9);
  out << fmt::format("  assumes         {}\n", d.assumes);
  out << fmt::format("  source          {}\n", d.source);
  if (overheads_device(d) != d.id)
    out << fmt::format("  trainer fits    {}'s (the device shares them)\n", overheads_device(d));
  // Where each figure comes from, as the plugin states it (ABI 1.14), a
  // line each.
  std::istringstream lines(d.figure_sources);
  bool first = true;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    out << fmt::format("  {:<15} {}\n", first ? "figures from" : "", line);
    first = false;
  }
}

}  // namespace ndsearch
