// SPDX-License-Identifier: Apache-2.0
// parameter_count.hpp: a parameter count as the verbs print it.
#pragma once

#include <string>

namespace ndsearch {

// "8.29 B", or "44.57 M" below 10^8 (a tower's parts), or "0".
std::string parameter_count(double count);

}  // namespace ndsearch
