// SPDX-License-Identifier: Apache-2.0
// test_device.cpp: the checks a device description must pass.
#include <catch2/catch.hpp>

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
  d.levels = {{8, NDS_LINK_SWITCH, 25e9, 450e9, 3e-6, "node"}, {0, NDS_LINK_SWITCH, 50e9, 50e9, 8e-6, "ib"}};
  return d;
}

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const auto& p : problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("A sound device has no problems") { CHECK(device_problems(sound_device()).empty()); }

TEST_CASE("Levels must grow from the inside out and only the last may be unbounded") {
  Device d = sound_device();
  d.levels = {{16, NDS_LINK_SWITCH, 25e9, 450e9, 3e-6, ""}, {8, NDS_LINK_SWITCH, 25e9, 50e9, 8e-6, ""},
              {0, NDS_LINK_SWITCH, 25e9, 50e9, 8e-6, ""}, {0, NDS_LINK_SWITCH, 25e9, 50e9, 8e-6, ""}};
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
