// SPDX-License-Identifier: Apache-2.0
// machine.hpp: what `-A DEVICE -d N` names: N devices of one kind.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/input/device_catalog.hpp"

namespace ndsearch {

struct Machine {
  const Device* device = nullptr;  // owned by the catalog
  uint64_t devices = 0;

  // The most pipeline stages the reference's bound allows here (topology.hpp).
  uint64_t pipeline_bound() const;
};

// Resolves `name` (an id, A2 or A3) in `catalog`. Throws UserError
// E-DEVICE-UNKNOWN, or E-DEVICE-COUNT when `devices` is 0.
Machine make_machine(const DeviceCatalog& catalog, std::string_view name, uint64_t devices);

}  // namespace ndsearch
