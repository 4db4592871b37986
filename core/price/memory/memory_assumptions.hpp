// SPDX-License-Identifier: Apache-2.0
// memory_assumptions.hpp: the lines of the output's `assumptions` that move
// the memory estimate: the precision of what each rank keeps when it came
// from a default (DESIGN §8.5), what the trainer holds otherwise, and the
// allocator's reserve.
#pragma once

#include <string>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

// One line naming the defaulted dtypes of the parameters, gradients, master
// weights and optimizer states, with their provenance (none when the config
// stated every one); one per holding the trainer states (swapped ops, zero
// 3's holding, the reused master); and the allocator's share with its source.
std::vector<std::string> memory_assumptions(const Model& model);

}  // namespace ndsearch
