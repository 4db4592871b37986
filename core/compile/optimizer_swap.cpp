// SPDX-License-Identifier: Apache-2.0
#include "core/compile/optimizer_swap.hpp"

#include <algorithm>

namespace ndsearch {

double swapped_update_s(double copy_bytes, double update_s, const OptimizerSwap& swap) {
  const double pieces = std::max<uint32_t>(swap.chunks, 1);
  const double copy = copy_bytes / swap.link_bytes_per_s / pieces, update = update_s / pieces;
  return 2 * copy + update + (pieces - 1) * std::max(copy, update);
}

}  // namespace ndsearch
