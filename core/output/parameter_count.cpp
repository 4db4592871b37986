// SPDX-License-Identifier: Apache-2.0
#include "core/output/parameter_count.hpp"

#include <fmt/format.h>

namespace ndsearch {

std::string parameter_count(double count) {
  if (count == 0) return "0";
  return count < 1e8 ? fmt::format("{:.2f} M", count / 1e6) : fmt::format("{:.2f} B", count / 1e9);
}

}  // namespace ndsearch
