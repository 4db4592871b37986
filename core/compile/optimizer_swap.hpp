// SPDX-License-Identifier: Apache-2.0
// optimizer_swap.hpp: optimizer states and master weights kept in host
// memory between steps (MindSpeed's --swap-optimizer), as the time model
// prices their copies around the update.
#pragma once

#include <cstdint>

namespace ndsearch {

// Each step copies the device's shard of the states in, updates it and copies
// it out, in `chunks` pieces pipelined so that one piece comes in while
// another is updated and a third goes out.
struct OptimizerSwap {
  double link_bytes_per_s = 0;  // per direction, this device's share; 0: not swapped
  // MindSpeed's --swap-optimizer-times default: the states move in 16 pieces.
  uint32_t chunks = 16;
};

// Seconds of the update with its copies: `copy_bytes` each way and
// `update_s` of HBM-bound work split in `chunks` pieces, three stages (in,
// update, out) of a pipeline: the first piece's three stages, then one
// slowest stage per further piece.
double swapped_update_s(double copy_bytes, double update_s, const OptimizerSwap& swap);

}  // namespace ndsearch
