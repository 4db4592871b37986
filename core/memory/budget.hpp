// SPDX-License-Identifier: Apache-2.0
// budget.hpp: the memory a rank may use (DESIGN §8.4): -M if given, else the
// config's stated device memory, else the device's HBM; minus the device's
// reserved bytes and --reserve-mem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"

namespace ndsearch {

struct Budget {
  double capacity_bytes = 0;
  std::string capacity_source;  // "`max_memory`", "config: <where>", "<trainer>'s default ...",
                                // "device <id>"
  double reserved_bytes = 0;    // the device's runtime reserve
  double reserve_mem_bytes = 0;  // the reserve_mem setting
  double budget_bytes = 0;
};

// `max_memory` and `reserve_mem` as the user typed them ("58GB"); throws
// UserError E-USAGE naming the flag for a size that does not read, E-BUDGET
// for a size above 1 PiB or a budget of 0 bytes or less (the reserves take
// all the memory).
Budget memory_budget(const Device& device, const Model& model, const std::optional<std::string>& max_memory,
                     const std::optional<std::string>& reserve_mem);

}  // namespace ndsearch
