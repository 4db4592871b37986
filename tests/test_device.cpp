// SPDX-License-Identifier: Apache-2.0
// test_device.cpp: the checks a device description must pass.
#include <catch2/catch.hpp>

#include <limits>  // quiet_NaN

#include "core/hardware/device.hpp"

using namespace ndsearch;

namespace {
Device sound_device() {
  Device d;
  d.id = "test-gpu";
  d.name = "Test GPU";
  d.vendor = "Tests";
  d.memory_bytes = uint64_t{80} << 30;
  d.memory_bandwidth_bytes_per_s = 3.35e12;
  d.reserved_bytes = uint64_t{2} << 30;
  d.peaks = {{"bf16", 989e12, {{1e9, 1e12}, {0.3, 0.8}}}};
  d.levels = {{8, NDS_LINK_SWITCH, 25e9, 450e9, 3e-6, "node"},
              {0, NDS_LINK_SWITCH, 50e9, 50e9, 8e-6, "ib"}};
  return d;
}

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const auto& p : problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("A sound device has no problems") {
  CHECK(device_problems(sound_device()).empty());
}

TEST_CASE("Levels must grow from the inside out and only the last may be unbounded") {
  Device d = sound_device();
  d.levels = {{16, NDS_LINK_SWITCH, 25e9, 450e9, 3e-6, ""},
              {8, NDS_LINK_SWITCH, 25e9, 50e9, 8e-6, ""},
              {0, NDS_LINK_SWITCH, 25e9, 50e9, 8e-6, ""},
              {0, NDS_LINK_SWITCH, 25e9, 50e9, 8e-6, ""}};
  auto problems = device_problems(d);
  CHECK(mentions(problems, "level 1 joins 8 devices, not more than level 0 (16)"));
  CHECK(mentions(problems, "level 2 is unbounded (0 devices) but is not the last"));
}

TEST_CASE("Figures must be positive and curves ascending with fractions between zero and one") {
  Device d = sound_device();
  d.memory_bandwidth_bytes_per_s = -1;
  d.peaks = {{"bf17", 0, {{1e12, 1e9}, {0.5, 1.5}}}};
  d.levels[0].link_bandwidth_bytes_per_s = -5e9;
  auto problems = device_problems(d);
  CHECK(mentions(problems, "memory_bandwidth_bytes_per_s is -1"));
  CHECK(mentions(problems, "peak dtype \"bf17\" is not one of fp32, tf32, bf16, fp16, fp8"));
  CHECK(mentions(problems, "bf17 peak_flops_per_s is 0"));
  CHECK(mentions(problems, "not strictly ascending at point 1"));
  CHECK(mentions(problems, "y[1] = 1.5 is outside (0, 1]"));
  CHECK(mentions(problems, "level 0 bandwidths must be > 0"));
}

TEST_CASE("Reserved memory must leave some memory") {
  Device d = sound_device();
  d.reserved_bytes = d.memory_bytes;
  CHECK(mentions(device_problems(d), "leaves no memory"));
}

TEST_CASE("ABI 1.1 efficiencies: 0 is the default, otherwise a fraction, curves ascending") {
  Device d = sound_device();
  d.memory_bandwidth_efficiency = 0.887;      // H100 STREAM triad, 2.97 / 3.35
  d.levels[0].bus_efficiency = 0.81;          // 365.6 / 450
  d.levels[0].all_reduce_speedup = 1.29;      // NVLS 473.1 / Ring 365.6
  d.levels[1].all_reduce_speedup = 1;         // 1 = no in-network reduction, as 0
  d.levels[0].half_bandwidth_bytes = 12.0e6;  // NVLink 4: half the busbw at 12 MB
  d.peaks[0].matmul_small_dim_efficiency = {{64, 128, 192, 1024}, {0.16, 0.32, 0.48, 1.0}};
  d.peaks[0].attention_forward_efficiency = {{1024, 8192}, {0.368, 0.692}};
  CHECK(device_problems(d).empty());

  d.memory_bandwidth_efficiency = 1.2;
  d.levels[0].bus_efficiency = -0.1;
  d.levels[1].bus_efficiency = std::numeric_limits<double>::quiet_NaN();
  d.levels[0].all_reduce_speedup = 0.9;  // a "speedup" below 1
  d.levels[0].half_bandwidth_bytes = -1.0e6;
  d.levels[1].half_bandwidth_bytes = std::numeric_limits<double>::infinity();
  d.peaks[0].matmul_small_dim_efficiency = {{128, 64}, {0.5, 0.25}};
  d.peaks[0].attention_forward_efficiency = {{1024, 8192}, {0.4, 1.1}};
  d.peaks[0].attention_backward_efficiency = {{-1, 8192}, {0.2, 0.5}};
  auto problems = device_problems(d);
  CHECK(mentions(problems,
                 "memory_bandwidth_efficiency is 1.2 (must be in (0, 1], or 0 for the default)"));
  CHECK(mentions(problems, "level 0 bus_efficiency is -0.1"));
  CHECK(mentions(problems, "level 1 bus_efficiency is nan"));
  CHECK(mentions(problems, "level 0 all_reduce_speedup is 0.9 (must be >= 1, or 0 for none)"));
  CHECK(
      mentions(problems, "level 0 half_bandwidth_bytes is -1000000 (must be >= 0, or 0 for none)"));
  CHECK(mentions(problems, "level 1 half_bandwidth_bytes is inf"));
  CHECK(mentions(problems,
                 "bf16 matmul_small_dim_efficiency x is not strictly ascending at point 1"));
  CHECK(mentions(problems, "bf16 attention_forward_efficiency y[1] = 1.1 is outside (0, 1]"));
  CHECK(
      mentions(problems, "bf16 attention_backward_efficiency x[0] = -1 is negative or not finite"));
}
