// SPDX-License-Identifier: Apache-2.0
// budget.hpp: the memory a rank may use (DESIGN §8.4): -M if given, else the
// config's stated device memory (a MindSpore pool, outside which the device's
// reserve already is), else the device's HBM; minus the device's reserved
// bytes (not from a config's pool) and --reserve-mem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"

namespace ndsearch {

struct Budget {
  double capacity_bytes = 0;
  std::string capacity_source;   // "`max_memory`", "config: <where>", "<trainer>'s default ...",
                                 // "device <id>"
  double reserved_bytes = 0;     // the device's runtime reserve
  double reserve_mem_bytes = 0;  // the reserve_mem setting
  double budget_bytes = 0;
  bool typed = false;  // the capacity is a size typed by the user or the config, not the device's
};

// `max_memory` and `reserve_mem` as the user typed them ("58GB"); throws
// UserError E-USAGE naming the flag for a size that does not read, E-BUDGET
// for a size above 1 PiB or a budget of 0 bytes or less (the reserves take
// all the memory).
Budget memory_budget(const Device& device, const Model& model,
                     const std::optional<std::string>& max_memory,
                     const std::optional<std::string>& reserve_mem);

// The weights alone, spread over all `devices` as thinly as any strategy can
// (every parameter sharded over every device), in the parameters' dtype: a
// budget below that fits no strategy, so the budget is what is wrong (a
// config's device memory or -M typed for another device). Throws UserError
// E-BUDGET naming where the budget came from and both sizes. Only for a size
// typed by the user or the config (-M, a config's device memory): with the
// device's own memory it is a machine too small, "nothing fits".
void check_budget_holds_weights(const Budget& budget, const Model& model, uint64_t devices);

}  // namespace ndsearch
