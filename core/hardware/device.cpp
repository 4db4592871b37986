// SPDX-License-Identifier: Apache-2.0
#include "core/hardware/device.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <functional>  // the problem sink curve_problems reports to
#include <string_view>

#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// The i-th element of a plugin array whose elements are `elem_size` apart.
template <class T>
const T& element(const T* base, size_t i, size_t elem_size) {
  return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(base) + i * elem_size);
}

std::string text(const char* s) {
  return s == nullptr ? std::string() : std::string(s);
}

[[noreturn]] void malformed(std::string_view source, std::string_view what) {
  throw UserError("E-HARDWARE-TABLE",
                  fmt::format("hardware plugin {}: {}; rebuild the plugin against this "
                              "ndsearch's headers or fix its table",
                              source, what));
}

// The prefix of a struct every reader needs: up to and including `field`.
#define NDS_REQUIRE(p, T, field, source)                                                    \
  do {                                                                                      \
    if (!NDS_HAS_FIELD(p, T, field))                                                        \
      malformed(source, fmt::format(#T " struct_size {} is too small to hold `" #field "`", \
                                    (p)->struct_size));                                     \
  } while (0)

Curve copy_curve(const nds_curve& c) {
  Curve curve;
  if (c.count == 0 || c.x == nullptr || c.y == nullptr) return curve;
  curve.x.assign(c.x, c.x + c.count);
  curve.y.assign(c.y, c.y + c.count);
  return curve;
}

DtypePeak copy_peak(const nds_dtype_peak& p, std::string_view source) {
  NDS_REQUIRE(&p, nds_dtype_peak, peak_flops_per_s, source);
  DtypePeak peak;
  peak.dtype = text(p.dtype);
  peak.peak_flops_per_s = p.peak_flops_per_s;
  if (NDS_HAS_FIELD(&p, nds_dtype_peak, matmul_efficiency))
    peak.matmul_efficiency = copy_curve(p.matmul_efficiency);
  // 1.1; a 1.0 plugin's peak has no such curves (the host's defaults apply).
  if (NDS_HAS_FIELD(&p, nds_dtype_peak, matmul_small_dim_efficiency))
    peak.matmul_small_dim_efficiency = copy_curve(p.matmul_small_dim_efficiency);
  if (NDS_HAS_FIELD(&p, nds_dtype_peak, attention_forward_efficiency))
    peak.attention_forward_efficiency = copy_curve(p.attention_forward_efficiency);
  if (NDS_HAS_FIELD(&p, nds_dtype_peak, attention_backward_efficiency))
    peak.attention_backward_efficiency = copy_curve(p.attention_backward_efficiency);
  return peak;
}

TopologyLevel copy_level(const nds_topology_level& l, std::string_view source) {
  NDS_REQUIRE(&l, nds_topology_level, latency_s, source);
  TopologyLevel level;
  level.group_devices = l.group_devices;
  level.link_kind = l.link_kind;
  level.link_bandwidth_bytes_per_s = l.link_bandwidth_bytes_per_s;
  level.device_bandwidth_bytes_per_s = l.device_bandwidth_bytes_per_s;
  level.latency_s = l.latency_s;
  if (NDS_HAS_FIELD(&l, nds_topology_level, name)) level.name = text(l.name);
  // 1.1; absent reads as 0, "the host's default".
  if (NDS_HAS_FIELD(&l, nds_topology_level, bus_efficiency))
    level.bus_efficiency = l.bus_efficiency;
  if (NDS_HAS_FIELD(&l, nds_topology_level, all_reduce_speedup))
    level.all_reduce_speedup = l.all_reduce_speedup;
  if (NDS_HAS_FIELD(&l, nds_topology_level, half_bandwidth_bytes))
    level.half_bandwidth_bytes = l.half_bandwidth_bytes;
  return level;
}

bool positive_finite(double v) {
  return std::isfinite(v) && v > 0;
}

// An efficiency of the ABI 1.1 fields: 0 means "absent", otherwise a fraction.
bool absent_or_fraction(double v) {
  return std::isfinite(v) && v >= 0 && v <= 1;
}

// A curve's x finite, not negative (FLOPs, dimensions, tokens) and strictly
// ascending, every y in (0, 1]; `name` says which curve for the message.
void curve_problems(const Curve& c, std::string_view dtype, std::string_view name,
                    const std::function<void(std::string)>& problem) {
  for (size_t i = 0; i < c.x.size(); ++i) {
    if (!std::isfinite(c.x[i]) || c.x[i] < 0)
      problem(fmt::format("{} {} x[{}] = {} is negative or not finite", dtype, name, i, c.x[i]));
    else if (i > 0 && !(c.x[i] > c.x[i - 1]))
      problem(fmt::format("{} {} x is not strictly ascending at point {}", dtype, name, i));
    if (!(c.y[i] > 0 && c.y[i] <= 1))
      problem(fmt::format("{} {} y[{}] = {} is outside (0, 1]", dtype, name, i, c.y[i]));
  }
}

}  // namespace

Device copy_device(const nds_device& d, std::string_view source) {
  NDS_REQUIRE(&d, nds_device, level_elem_size, source);
  if (d.id == nullptr) malformed(source, "a device has no id");
  Device device;
  device.id = d.id;
  device.name = text(d.name);
  device.vendor = text(d.vendor);
  device.memory_bytes = d.memory_bytes;
  device.memory_bandwidth_bytes_per_s = d.memory_bandwidth_bytes_per_s;
  device.reserved_bytes = d.reserved_bytes;
  device.host_link_bytes_per_s = d.host_link_bytes_per_s;
  if (d.peak_count > 0 && (d.peaks == nullptr || d.peak_elem_size < sizeof(size_t)))
    malformed(source, fmt::format("device {}: peaks array is NULL or peak_elem_size is {}",
                                  device.id, d.peak_elem_size));
  for (size_t i = 0; i < d.peak_count; ++i)
    device.peaks.push_back(copy_peak(element(d.peaks, i, d.peak_elem_size), source));
  if (d.level_count > 0 && (d.levels == nullptr || d.level_elem_size < sizeof(size_t)))
    malformed(source, fmt::format("device {}: levels array is NULL or level_elem_size is {}",
                                  device.id, d.level_elem_size));
  for (size_t i = 0; i < d.level_count; ++i)
    device.levels.push_back(copy_level(element(d.levels, i, d.level_elem_size), source));
  if (NDS_HAS_FIELD(&d, nds_device, assumes)) device.assumes = text(d.assumes);
  if (NDS_HAS_FIELD(&d, nds_device, source)) device.source = text(d.source);
  if (device.source.empty()) device.source = std::string(source);
  if (NDS_HAS_FIELD(&d, nds_device, memory_bandwidth_efficiency))  // 1.1; absent: 0
    device.memory_bandwidth_efficiency = d.memory_bandwidth_efficiency;
  if (NDS_HAS_FIELD(&d, nds_device, figure_sources))  // 1.14; absent: none stated
    device.figure_sources = text(d.figure_sources);
  if (NDS_HAS_FIELD(&d, nds_device, overheads_of))  // 1.15; absent: its own fits
    device.overheads_of = text(d.overheads_of);
  return device;
}

std::vector<std::string> device_problems(const Device& d) {
  static constexpr std::array<std::string_view, 5> known_dtypes = {"fp32", "tf32", "bf16", "fp16",
                                                                   "fp8"};
  std::vector<std::string> problems;
  auto problem = [&](std::string what) { problems.push_back(d.id + ": " + std::move(what)); };
  if (d.name.empty()) problem("has no display name");
  if (d.vendor.empty()) problem("has no vendor");
  if (d.memory_bytes == 0) problem("memory_bytes is 0");
  if (!positive_finite(d.memory_bandwidth_bytes_per_s))
    problem(fmt::format("memory_bandwidth_bytes_per_s is {} (must be > 0)",
                        d.memory_bandwidth_bytes_per_s));
  if (d.reserved_bytes >= d.memory_bytes)
    problem(
        fmt::format("reserved_bytes {} leaves no memory of {}", d.reserved_bytes, d.memory_bytes));
  if (d.host_link_bytes_per_s < 0 || !std::isfinite(d.host_link_bytes_per_s))
    problem("host_link_bytes_per_s is negative or not finite");
  if (d.peaks.empty()) problem("states no peak FLOP/s");
  for (const DtypePeak& p : d.peaks) {
    bool known = false;
    for (std::string_view k : known_dtypes) known = known || p.dtype == k;
    if (!known)
      problem(fmt::format("peak dtype \"{}\" is not one of fp32, tf32, bf16, fp16, fp8", p.dtype));
    if (!positive_finite(p.peak_flops_per_s))
      problem(fmt::format("{} peak_flops_per_s is {} (must be > 0)", p.dtype, p.peak_flops_per_s));
    curve_problems(p.matmul_efficiency, p.dtype, "matmul_efficiency", problem);
    curve_problems(p.matmul_small_dim_efficiency, p.dtype, "matmul_small_dim_efficiency", problem);
    curve_problems(p.attention_forward_efficiency, p.dtype, "attention_forward_efficiency",
                   problem);
    curve_problems(p.attention_backward_efficiency, p.dtype, "attention_backward_efficiency",
                   problem);
  }
  if (!absent_or_fraction(d.memory_bandwidth_efficiency))
    problem(
        fmt::format("memory_bandwidth_efficiency is {} (must be in (0, 1], or 0 for the default)",
                    d.memory_bandwidth_efficiency));
  if (d.levels.empty()) problem("states no topology level");
  uint32_t previous = 0;
  for (size_t i = 0; i < d.levels.size(); ++i) {
    const TopologyLevel& l = d.levels[i];
    const bool last = i + 1 == d.levels.size();
    if (l.group_devices == 0 && !last)
      problem(fmt::format("level {} is unbounded (0 devices) but is not the last", i));
    if (l.group_devices != 0 && l.group_devices <= previous)
      problem(
          fmt::format("level {} joins {} devices, not more than level {} ({}): levels must "
                      "grow from the inside out",
                      i, l.group_devices, i - 1, previous));
    if (l.link_kind != NDS_LINK_SWITCH && l.link_kind != NDS_LINK_MESH)
      problem(
          fmt::format("level {} link_kind {} is neither switch (0) nor mesh (1)", i, l.link_kind));
    if (!positive_finite(l.link_bandwidth_bytes_per_s) ||
        !positive_finite(l.device_bandwidth_bytes_per_s))
      problem(fmt::format("level {} bandwidths must be > 0 bytes/s", i));
    if (!(l.latency_s >= 0) || !std::isfinite(l.latency_s))
      problem(fmt::format("level {} latency_s is {} (must be >= 0)", i, l.latency_s));
    if (!absent_or_fraction(l.bus_efficiency))
      problem(fmt::format("level {} bus_efficiency is {} (must be in (0, 1], or 0 for the default)",
                          i, l.bus_efficiency));
    if (!std::isfinite(l.all_reduce_speedup) || l.all_reduce_speedup < 0 ||
        (l.all_reduce_speedup > 0 && l.all_reduce_speedup < 1))
      problem(fmt::format("level {} all_reduce_speedup is {} (must be >= 1, or 0 for none)", i,
                          l.all_reduce_speedup));
    if (!std::isfinite(l.half_bandwidth_bytes) || l.half_bandwidth_bytes < 0)
      problem(fmt::format("level {} half_bandwidth_bytes is {} (must be >= 0, or 0 for none)", i,
                          l.half_bandwidth_bytes));
    previous = l.group_devices;
  }
  return problems;
}

}  // namespace ndsearch
