// SPDX-License-Identifier: Apache-2.0
// memory_assumptions.hpp: the lines of the output's `assumptions` that move
// the memory estimate and that the config did not state: the precision of
// what each rank keeps when it came from a default (DESIGN §8.5).
#pragma once

#include <string>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

// One line naming the defaulted dtypes of the parameters, gradients, master
// weights and optimizer states, with their provenance; none when the config
// stated every one.
std::vector<std::string> memory_assumptions(const Model& model);

}  // namespace ndsearch
