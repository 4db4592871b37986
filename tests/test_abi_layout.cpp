// SPDX-License-Identifier: Apache-2.0
// test_abi_layout.cpp: NDS_HAS_FIELD, the rule every reader of a struct from
// another minor follows. The frozen offsets, struct_size first in every
// extensible struct among them, are asserted at compile time
// (tests/abi/frozen_layout.h, built in C99/11/17 and C++17/20 by
// tests/abi/headers_compile.{c,cpp}): a runtime test of them could not fail.
#include <ndsearch/nds.h>
#include <catch2/catch.hpp>

TEST_CASE("NDS_HAS_FIELD reads a field only when the writer's struct reaches its end") {
  nds_device device{};
  device.struct_size = offsetof(nds_device, assumes);  // written before `assumes` existed
  CHECK(NDS_HAS_FIELD(&device, nds_device, level_elem_size));
  CHECK_FALSE(NDS_HAS_FIELD(&device, nds_device, assumes));
  device.struct_size = sizeof(nds_device);
  CHECK(NDS_HAS_FIELD(&device, nds_device, assumes));
}
