// SPDX-License-Identifier: Apache-2.0
// test_topology.cpp: what a device's levels mean for a group (DESIGN §8.3)
// and the reference's pipeline bound (reference/nd_behaviour.md §3.7).
#include <catch2/catch.hpp>

#include <map>

#include "core/hardware/topology.hpp"
#include "core/input/device_catalog.hpp"
#include "core/input/machine.hpp"
#include "core/support/user_error.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;

namespace {
const DeviceCatalog& shipped() {
  return test::shipped_devices();
}
}  // namespace

TEST_CASE("Pipeline bound of the reference: A2 8 per node and A3 16 per node then 24 nodes") {
  // §3.7: best = max over n = N, N/2, ... > 1 of n / devices_below(level holding n),
  // on the reference's own levels.
  const Device& a2 = shipped().resolve("ascend-a2-nd");
  CHECK(pipeline_bound(a2, 16) == 8);  // n=16: 16/8 = 2; n=8: 8/1 = 8
  CHECK(pipeline_bound(a2, 64) == 8);
  CHECK(pipeline_bound(a2, 128) == 16);    // n=128: 128/8
  CHECK(pipeline_bound(a2, 1024) == 128);  // n=1024: 1024/8
  const Device& a3 = shipped().resolve("ascend-a3-nd");
  CHECK(pipeline_bound(a3, 128) == 16);   // n=128: 128/16 = 8; n=16: 16/1 = 16
  CHECK(pipeline_bound(a3, 1024) == 16);  // n=1024: 1024/384 = 2; n=16: 16
  CHECK(pipeline_bound(a3, 1) == 1);
}

TEST_CASE("A group spans the innermost level whose size is at least k times its stride") {
  const Device& h100 = shipped().resolve("nvidia-h100-sxm");
  CHECK(level_spanned(h100, 8, 1) == 0);   // tp 8, stride 1: one node
  CHECK(level_spanned(h100, 2, 4) == 0);   // 2 ranks 4 apart: still within 8
  CHECK(level_spanned(h100, 64, 8) == 1);  // dp 64, stride 8: 512 devices, across nodes
  CHECK(level_spanned(h100, 3, 3) == 1);   // 9 devices: more than a node
  const Device& a3 = shipped().resolve("ascend-a3-nd");
  CHECK(level_spanned(a3, 16, 1) == 0);
  CHECK(level_spanned(a3, 24, 16) == 1);  // 384 devices: one super-node
  CHECK(level_spanned(a3, 25, 16) == 2);
}

TEST_CASE(
    "A mesh gives a group of k devices k-1 links and a switch the full per-device bandwidth") {
  const Device& mi300x = shipped().resolve("amd-mi300x");
  CHECK(group_bandwidth_bytes_per_s(mi300x, 2, 1) == 64e9);      // 1 link of 64 GB/s
  CHECK(group_bandwidth_bytes_per_s(mi300x, 4, 1) == 3 * 64e9);  // 3 links
  CHECK(group_bandwidth_bytes_per_s(mi300x, 8, 1) == 448e9);     // 7 links = all of them
  CHECK(group_bandwidth_bytes_per_s(mi300x, 16, 1) == 50e9);     // across nodes: the NIC
  const Device& h100 = shipped().resolve("nvidia-h100-sxm");
  CHECK(group_bandwidth_bytes_per_s(h100, 2, 1) == 450e9);  // NVSwitch: all of it
  CHECK(group_bandwidth_bytes_per_s(h100, 8, 1) == 450e9);
  CHECK(group_bandwidth_bytes_per_s(h100, 64, 8) == 50e9);
  CHECK(group_bandwidth_bytes_per_s(h100, 1, 1) == 0);  // nobody to talk to
}

TEST_CASE("A device whose levels are all bounded cannot hold a bigger group") {
  Device d = shipped().resolve("nvidia-h100-sxm");
  d.levels.pop_back();  // only the 8-GPU node left
  try {
    level_spanned(d, 16, 1);
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-DEVICE-TOPOLOGY");
    CHECK_THAT(e.what(), Catch::Contains("16 devices"));
  }
}

TEST_CASE("A machine is a device and a count with the device's pipeline bound") {
  const Machine a2 = make_machine(shipped(), "A2", 1024);
  CHECK(a2.device->id == "ascend-a2");
  CHECK(a2.pipeline_bound() == 128);
  try {
    make_machine(shipped(), "nvidia-h100-sxm", 0);
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-DEVICE-COUNT");
  }
}
