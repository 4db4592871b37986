// SPDX-License-Identifier: Apache-2.0
#include "core/input/machine.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include "core/hardware/topology.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

uint64_t Machine::pipeline_bound() const {
  return ndsearch::pipeline_bound(*device, devices);
}

Machine make_machine(const DeviceCatalog& catalog, std::string_view name, uint64_t devices) {
  if (devices == 0)
    throw UserError("E-DEVICE-COUNT", Setting("devices").named("0") +
                                          ": give the number of devices to train on (at least 1)");
  return {&catalog.resolve(name), devices};
}

}  // namespace ndsearch
