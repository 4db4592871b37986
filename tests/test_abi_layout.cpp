// SPDX-License-Identifier: Apache-2.0
// test_abi_layout.cpp: NDS_HAS_FIELD, the rule every reader of a struct from
// another minor follows; the frozen offsets are asserted at compile time in
// tests/abi/headers_compile.{c,cpp}.
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

TEST_CASE("Every extensible struct starts with struct_size") {
  CHECK(offsetof(nds_module, struct_size) == 0);
  CHECK(offsetof(nds_host, struct_size) == 0);
  CHECK(offsetof(nds_device, struct_size) == 0);
  CHECK(offsetof(nds_candidate, struct_size) == 0);
  CHECK(offsetof(nds_memory_item, struct_size) == 0);
  CHECK(offsetof(nds_cp_item, struct_size) == 0);
  CHECK(offsetof(nds_builder_v1, struct_size) == 0);
}
