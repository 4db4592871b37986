// SPDX-License-Identifier: Apache-2.0
// placement.hpp: what the core computes for a candidate and hands to every
// plugin with it (nds_candidate): the layers of each chunk, how many of them
// are recomputed, and the micro-batches each chunk holds in flight.
#pragma once

#include <ndsearch/nds_candidate.h>

#include <cstdint>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

struct Placement {
  nds_strategy strategy{};
  std::vector<uint32_t> chunk_layers;             // [rank·vpp + chunk]
  std::vector<uint32_t> chunk_first_layer;        // model-order index of the chunk's first layer
  std::vector<uint32_t> chunk_recomputed_layers;
  std::vector<uint32_t> in_flight;

  // The ABI view; valid while this Placement lives unchanged.
  nds_candidate candidate() const;
  // Virtual stage of (rank, chunk): c·pp + r, or 2·pp-1-r for zb-v's second chunk.
  static uint32_t virtual_stage(const nds_strategy& s, uint32_t rank, uint32_t chunk);
};

// Layers per virtual stage by the reference's default split and remainder
// rule (reference/nd_behaviour.md §8.3): L // (p·v) each, and the L % (p·v)
// extra layers placed from chunk v-2, rank p-2 backwards (vpp = 1: the first
// L % p stages get one more). Indexed [virtual stage].
std::vector<uint32_t> default_split(uint32_t layers, uint32_t pp, uint32_t vpp);

// The micro-batches whose activations of each chunk its rank holds at its
// peak (DESIGN §8.6), [rank·vpp + chunk].
std::vector<uint32_t> micro_batches_in_flight(const nds_strategy& s);

// Needs a strategy that passed the checks. `layers_from_config`: the config's
// stated per-stage layer counts or offsets instead of the default split.
// Throws UserError E-PLACEMENT when a stated split does not fit the strategy.
Placement place_layers(const nds_strategy& s, const Model& model, bool layers_from_config);

}  // namespace ndsearch
