// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/applied_recompute.hpp"

#include <ndsearch/nds_candidate.h>  // nds_layer_option

#include <algorithm>

#include "plugins/common/parsing/text_edits.hpp"  // cannot_write

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

namespace {
bool any_positive(const std::vector<int64_t>& v) {
  return std::any_of(v.begin(), v.end(), [](int64_t n) { return n > 0; });
}
}  // namespace

bool StageLists::any_full() const {
  return any_positive(full);
}
bool StageLists::any_selective() const {
  return any_positive(selective);
}

StageLists per_stage_lists(const std::string& path, const sdk::AppliedStrategy& a,
                           const std::string& trainer) {
  StageLists out;
  if (a.layer_options.empty()) return out;
  if (a.strategy.vpp != 1)
    cannot_write(path, "per-stage recompute with " + std::to_string(a.strategy.vpp) +
                           " virtual stages: this writer of " + trainer +
                           "'s per-stage recompute lists writes one list per stage (vpp 1); "
                           "write the per-chunk lists by hand, or rank with one recompute mode");
  for (const StageRecompute& stage : recompute_per_virtual_stage(a)) {
    if (stage.offloaded > 0)
      cannot_write(path, "an offloaded layer: " + trainer +
                             "'s recompute lists cannot state per-layer offload; rank without "
                             "offloading");
    out.full.push_back(stage.full);
    out.selective.push_back(stage.selective);
  }
  return out;
}

}  // namespace ndsearch::plugins
