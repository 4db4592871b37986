// SPDX-License-Identifier: Apache-2.0
// recompute_potentials.hpp: what each recompute option would buy and cost on
// each stage of the top strategies (the reference's recompute potentials):
// every layer of the stage under the option, against every layer kept.
#pragma once

#include <cstdint>
#include <vector>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/search/search.hpp"

namespace ndsearch {

struct RecomputePotential {
  size_t rank = 0;  // 1 = the best of the ranking
  uint32_t stage = 0;
  int32_t option =
      0;  // nds_layer_option: selective, full, offload (offload only when the search offloads)
  uint32_t layers = 0;
  double saved_bytes = 0;  // the stage's peak, every layer kept, less its peak under the option
  double extra_s = 0;      // seconds per step the stage's work grows by
};

// For the first `count` of `ranking` (a search's, with `options`), in rank,
// stage and option order. The strategies' own recompute is set aside: each
// is measured from every layer kept. Throws as the search's pricing does.
std::vector<RecomputePotential> recompute_potentials(const PluginRegistry& registry, Model& model,
                                                     const Device& device,
                                                     const SearchOptions& options,
                                                     const std::vector<PricedCandidate>& ranking,
                                                     size_t count);

}  // namespace ndsearch
