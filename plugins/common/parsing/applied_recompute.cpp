// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/applied_recompute.hpp"

#include <ndsearch/nds_candidate.h>  // nds_layer_option

namespace ndsearch::plugins {
namespace {

std::vector<int64_t> virtual_stage_sizes(const sdk::AppliedStrategy& a) {
  if (!a.stage_layers.empty()) return a.stage_layers;
  const int64_t stages = int64_t{a.strategy.pp} * a.strategy.vpp;
  return std::vector<int64_t>(static_cast<size_t>(stages), a.layers / stages);
}

}  // namespace

std::vector<StageRecompute> recompute_per_virtual_stage(const sdk::AppliedStrategy& a) {
  std::vector<StageRecompute> out;
  if (a.layer_options.empty()) return out;
  size_t layer = 0;
  for (const int64_t size : virtual_stage_sizes(a)) {
    StageRecompute& s = out.emplace_back();
    s.layers = size;
    bool kept_seen = false;
    for (int64_t i = 0; i < size && layer < a.layer_options.size(); ++i, ++layer) {
      const int32_t option = a.layer_options[layer];
      s.full += option == NDS_LAYER_FULL;
      s.selective += option == NDS_LAYER_SELECTIVE;
      s.offloaded += option == NDS_LAYER_OFFLOAD;
      if (option == NDS_LAYER_FULL && kept_seen) s.full_first = false;
      if (option != NDS_LAYER_FULL) kept_seen = true;
    }
  }
  return out;
}

}  // namespace ndsearch::plugins
